import { createApiServer, type ApiServer } from '../../bin/serve-api.ts'
import { createRuntime, type Runtime } from '../../bin/runtime.ts'
import { loadConfig } from '../../core/config.ts'
import { createSolanaProcessor, type SolanaProcessorDeps } from '../../pipelines/process/solana-processor.ts'
import { TEST_ADMIN_TOKEN } from './embedded.ts'
import { tempDir } from './temp.ts'

export interface SolanaEnv {
  rt: Runtime
  api: ApiServer
  processor: ReturnType<typeof createSolanaProcessor>
  /** Trades inserted and folded so far. */
  ingested(): number
  /** GET a path of the API as the operator (paid endpoints answer without payment). */
  get(url: string): Promise<{ status: number; json(): any }>
  close(): Promise<void>
}

/**
 * The Solana venue's pipeline in one test process: chDB in a temp dir, the in-process bus, the
 * Solana processor (pushing each folded batch to the API's Solana serving) and the API.
 */
export async function startSolanaEnv(opts: Pick<SolanaProcessorDeps, 'tradeSinkHooks'> = {}): Promise<SolanaEnv> {
  const dir = tempDir()
  const rt = await createRuntime(loadConfig({ DATA_DIR: dir.path, SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'silent' }), 'test')
  const api = await createApiServer(rt, { pollMs: 0 })
  let ingested = 0
  const processor = createSolanaProcessor({
    ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, tradeSinkHooks: opts.tradeSinkHooks,
    onTrades: (n) => {
      ingested += n
      api.deps.solana.advanced(n)
    },
  })
  await processor.start()
  return {
    rt,
    api,
    processor,
    ingested: () => ingested,
    async get(url) {
      const res = await api.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })
      return { status: res.statusCode, json: () => res.json() }
    },
    async close() {
      await processor.stop()
      await api.close()
      await rt.close()
      dir.cleanup()
    },
  }
}
