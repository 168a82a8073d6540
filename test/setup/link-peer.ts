import { DependencyUnavailableError } from '../../core/dependency.ts'
import { linkOver } from '../../bin/process-link.ts'

/**
 * The other end of test/unit/process-link.test.ts, forked over IPC: it echoes, fails as asked, never answers one kind,
 * tells before it is asked anything, and exits on request.
 */
const link = linkOver(process as unknown as Parameters<typeof linkOver>[0])
link.tell('early', 1)
link.tell('early', 2)
link.onRequest('echo', (v) => v)
link.onRequest('store-down', () => {
  throw new DependencyUnavailableError('store', 'connection refused')
})
link.onRequest('fails', async () => {
  throw new Error('plain failure')
})
link.onRequest('uncarried', () => ({ f: () => 1 }))
link.onRequest('never', () => new Promise(() => {}))
link.onRequest('exit', () => {
  setTimeout(() => process.exit(0), 10)
})
link.onTell('ping', (n) => link.tell('pong', n))
