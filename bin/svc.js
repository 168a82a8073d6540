#!/usr/bin/env -S node --max-semi-space-size=64 --min-semi-space-size=16
// The `svc` CLI entry: registers the TypeScript loader, then runs the command dispatcher.
import { register } from 'tsx/esm/api'

register()
await import('./svc.ts')
