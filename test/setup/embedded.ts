import { createRuntime, type Runtime } from '../../bin/runtime.ts'
import { createApiServer, type ApiServer } from '../../bin/serve-api.ts'
import { followed4663 } from '../../bin/follow.ts'
import { startScansRole } from '../../bin/scans-role.ts'
import type { ScansWorker, ScansWorkerDeps } from '../../pipelines/scans/scans-worker.ts'
import { loadConfig } from '../../core/config.ts'
import { startAlertsWorker, type AlertOptions, type AlertsWorker } from '../../pipelines/alerts/alerts-worker.ts'
import { createChainProcessor, type ChainProcessor } from '../../pipelines/process/chain-processor.ts'
import { createPriceProcessor } from '../../pipelines/process/price-processor.ts'
import { createSocialProcessor } from '../../pipelines/process/social-processor.ts'
import { createCallGrader, type CallGrader, type GraderPass } from '../../pipelines/social/grade-calls.ts'
import { createSimSource } from '../../pipelines/sources/sim-source.ts'
import { DEFAULT_START_TIME } from '../../pipelines/sim/chain-sim.ts'
import { tempDir } from './temp.ts'
import type { ServedEndpoint } from '../../core/endpoint/deps.ts'

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789'

export interface Embedded {
  rt: Runtime
  api: ApiServer
  processor: ChainProcessor
  /** The alerts role (producers and delivery), as `svc start` runs it beside the API. */
  alerts: AlertsWorker
  /** The scans role (scan jobs, daily scans of watched tokens), as `svc start` runs it beside the API. */
  scans: ScansWorker
  /** Publish simulated blocks through `block` and wait until they are ingested. */
  ingestThrough(block: number): Promise<void>
  /** Run a call-grader pass now (the grader also runs on its own, as in the social role). */
  grade(): Promise<GraderPass | null>
  /** The call grader itself (its loop can be stopped; runOnce still works then). */
  grader: CallGrader
  close(): Promise<void>
}

/**
 * The embedded mode in one test process: chDB in a temp dir, the in-process bus and store,
 * the chain processor and the API, with simulated blocks published on demand.
 */
export async function startEmbedded(env: Record<string, string> = {}, opts: { social?: boolean; alerts?: AlertOptions; scans?: Partial<Pick<ScansWorkerDeps, 'report' | 'daily'>>; catalog?: ServedEndpoint[] } = {}): Promise<Embedded> {
  const dir = tempDir()
  // Batches of 2,000 blocks, not svc start's 6,000: ingestThrough waits for the chain's watermark
  // only, and the tests that read social rows after it were written with the social consumers
  // keeping pace with batches of this size (one 5,000-block batch outran the follows consumer).
  const config = loadConfig({ DATA_DIR: dir.path, SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'warn', PIPELINE_BATCH_BLOCKS: '2000', ...env })
  const rt = await createRuntime(config, 'test')
  const api = await createApiServer(rt, { pollMs: 0, alerts: { allowLoopback: opts.alerts?.allowLoopback }, catalog: opts.catalog })
  const alerts = await startAlertsWorker(
    { ch: rt.ch, bus: rt.bus, store: rt.store, logger: rt.logger, metrics: rt.metrics, tokens: api.deps.tokens, social: api.deps.social, watermarks: api.watermarks },
    opts.alerts,
  )
  const scans = await startScansRole(rt, api.deps.scans, opts.scans)
  const processor = createChainProcessor({
    ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, chainId: 4663,
    follow: followed4663(config), maxBatchBlocks: config.PIPELINE_BATCH_BLOCKS,
    // Pushed as `svc start` pushes them to its API process: the feed's followers apply them.
    onAdvance: (b, seq, _served, pushed) => api.watermarks.advance(4663, b, seq, pushed),
    pushBatches: true,
  })
  await processor.start()
  const prices = createPriceProcessor({ ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics })
  await prices.start()
  const social = createSocialProcessor({ ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, onInserted: (n) => api.watermarks.socialAdvanced(n) })
  await social.start()
  const grader = createCallGrader({ ch: rt.ch, logger: rt.logger, intervalMs: 500, onGraded: (n) => api.watermarks.socialAdvanced(n) })
  grader.start()
  let next = 1
  return {
    rt,
    api,
    processor,
    alerts,
    scans,
    grade: () => grader.runOnce(),
    grader,
    async ingestThrough(block) {
      if (block >= next) {
        const sim = createSimSource({
          bus: rt.bus, logger: rt.logger, chainId: 4663, seed: config.SIMULATOR_SEED, blockSeconds: 2,
          start: { fromBlock: next, genesis: DEFAULT_START_TIME }, untilBlock: block, social: opts.social,
        })
        await sim.run()
        next = block + 1
      }
      // Stuck means no progress for a minute, not a slow machine: a busy CI host ingests slower.
      let seen = processor.watermark()
      let movedAt = Date.now()
      while (processor.watermark() < block) {
        if (processor.watermark() !== seen) {
          seen = processor.watermark()
          movedAt = Date.now()
        }
        if (Date.now() - movedAt > 60_000) throw new Error(`ingest stuck at block ${processor.watermark()}, waiting for ${block}`)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    async close() {
      await processor.stop()
      await prices.stop()
      await social.stop()
      await grader.stop()
      await alerts.stop()
      await scans.stop()
      await api.close()
      await rt.close()
      dir.cleanup()
    },
  }
}
