// The worker thread's entry: the TypeScript loader first (workers do not inherit the one the
// process registered), then the simulator's worker (sim-worker.ts).
import { register } from 'tsx/esm/api'

register()
await import('./sim-worker.ts')
