// The local facilitator's worker thread entry: the TypeScript loader first (workers do not
// inherit the one the process registered), then the worker itself (facilitator-worker.ts).
import { register } from 'tsx/esm/api'

register()
await import('./facilitator-worker.ts')
