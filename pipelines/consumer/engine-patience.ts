import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { enginePatience, setEnginePatience } from '../../core/engine-accounting.ts'

/** The longest a consumer's statement may wait, in request timeouts (5 s x 64: about 5 minutes). */
export const MAX_PATIENCE = 64

/** Batches in a row without a timed-out statement after which the wait halves again. */
export const CALM_BATCHES = 10

export interface EnginePatience {
  /** A statement of the consumer timed out: its retry waits twice as long. The new multiple. */
  timedOut(): number
  /** A batch of the consumer is done (acknowledged or left for later). */
  batchDone(): void
}

/**
 * How long a consumer's statements wait for the engine's answer, as a multiple of the engine
 * client's request timeout (CLICKHOUSE_REQUEST_TIMEOUT_MS, which keeps API reads failing fast).
 * A consumer retries a batch whose statement timed out, and a statement that simply needs longer
 * than the timeout (a backfill batch on a machine busy with other work) timed out again on every
 * retry: the consumer never got past it, its offsets never moved. So each timeout doubles the wait
 * of the consumer's statements, up to MAX_PATIENCE; an engine that answers nothing is still given
 * up on each time, later. After CALM_BATCHES batches without a timeout the wait halves, so a
 * passing slowness does not leave the consumer slow to notice a hung engine.
 *
 * The state is the consumer's engine client's (`engineFor`); without one, nothing changes.
 */
export function createEnginePatience(engine: ClickHouseClient | undefined): EnginePatience {
  let calm = 0
  return {
    timedOut() {
      if (!engine) return 1
      // The batch that timed out is not a calm one.
      calm = -1
      const factor = Math.min(MAX_PATIENCE, enginePatience(engine) * 2)
      setEnginePatience(engine, factor)
      return factor
    },
    batchDone() {
      if (!engine || enginePatience(engine) === 1) return
      if (++calm < CALM_BATCHES) return
      calm = 0
      setEnginePatience(engine, enginePatience(engine) / 2)
    },
  }
}
