// The local facilitator's worker thread entry: the TypeScript loader first (workers do not
// inherit the one the process registered), then the worker itself (facilitator-worker.ts).
//
// CommonJS on purpose: viem imports its secp256k1 code dynamically on every signature recovery
// (two per paid call). Under the ES module loader with tsx's hooks, each such import is resolved
// through the hooks' thread: about 0.35 ms a recovery, 0.85 ms of the worker's 9.7 ms of CPU a
// paid call (scratch probe, 400 calls one at a time, 3 runs each way). Loaded as CommonJS, the
// SDK and viem come from their CommonJS builds, where that import is a cached require().
require('tsx/cjs/api').register()
require('./facilitator-worker.ts')
