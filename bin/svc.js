#!/usr/bin/env node
// The `svc` CLI entry: registers the TypeScript loader, then runs the command dispatcher.
import { register } from 'tsx/esm/api'

register()
await import('./svc.ts')
