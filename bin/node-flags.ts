/**
 * The V8 flags every service process starts with: a young generation of 16 MB growing to 64 MB
 * per semi-space (Node's default grows to 16). A request's objects and a batch's live for tens of
 * milliseconds; with a small young generation, collections come every few milliseconds under load
 * and promote what is still in flight to the old generation, where only a full collection frees
 * it. Measured live on the default world, one process serving /token at 16 connections from a
 * separate process: 19-23k req/s without, 26-29k with. V8 reads them only at start, so every way
 * of starting the service passes them (package.json's scripts, bin/svc.js's interpreter line, the
 * test and bench spawners, the k8s manifests; test/unit/node-flags.test.ts checks them all).
 */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=64', '--min-semi-space-size=16'] as const

/** Whether this process was started with the service's V8 flags. */
export function startedWithServiceFlags(execArgv: readonly string[] = process.execArgv): boolean {
  return SERVICE_NODE_FLAGS.every((f) => execArgv.includes(f))
}
