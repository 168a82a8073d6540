import { DEFAULT_START_TIME } from '../pipelines/sim/chain-sim.ts'
import { resolveSimStart, type SimStart } from '../pipelines/sources/sim-source.ts'
import type { Runtime } from './runtime.ts'

/**
 * Where `svc sim` starts. `--from` replays the fixed world from that block (`--genesis`, default
 * 2025-01-01). Otherwise it resumes after the stored watermark when it shares the pipeline's
 * ClickHouse (CLICKHOUSE_URL), and with none stored (or no shared engine to read one from) a new
 * world starts with the configured backfill (SIMULATOR_BACKFILL_HOURS, 24 h), as `svc start`
 * does, never with the 30 million blocks since 2025-01-01. `--genesis` alone pins a new world's
 * clock.
 */
export async function simCommandStart(
  rt: Runtime,
  chainId: number,
  values: { from?: string; genesis?: string },
  checkpoint?: { path: string; seed: number },
): Promise<SimStart> {
  const c = rt.config
  if (values.from !== undefined) return { fromBlock: Number(values.from), genesis: Number(values.genesis ?? DEFAULT_START_TIME) }
  if (c.CLICKHOUSE_URL) return resolveSimStart(rt.ch, chainId, c.SIMULATOR_BLOCK_SECONDS, c.simulatorBackfillBlocks, checkpoint)
  if (values.genesis !== undefined) return { fromBlock: 1, genesis: Number(values.genesis) }
  rt.logger.warn(
    { chainId, backfillBlocks: c.simulatorBackfillBlocks },
    'no CLICKHOUSE_URL: the simulator cannot read the pipeline\'s watermark, so it starts a new world with the configured backfill; point CLICKHOUSE_URL at the shared engine to resume',
  )
  // Its own engine holds no chain unless a pipeline ran on this DATA_DIR before: then it resumes.
  return resolveSimStart(rt.ch, chainId, c.SIMULATOR_BLOCK_SECONDS, c.simulatorBackfillBlocks)
}
