import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A fresh temporary directory (a chDB data path); removed by the returned cleanup. */
export function tempDir(prefix = 'svc-test-'): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix))
  // The engine's background threads may still finish a merge in it after close: a removal that
  // meets a directory filling again is tried again shortly.
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }) }
}
