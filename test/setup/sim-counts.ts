import { decodeLog } from '../../pipelines/decode/index.ts'
import { createChainSimulator, DEFAULT_START_TIME } from '../../pipelines/sim/chain-sim.ts'

/**
 * Counts over the simulator's own blocks 1..`blocks` (seed 4663, 2 s blocks unless given),
 * computed without the pipeline: what a correct ingest must hold, row for row.
 */
export function independentCounts(blocks: number, opts: { startTime?: number; blockSeconds?: number } = {}) {
  const sim = createChainSimulator({ chainId: 4663, seed: 4663, startTime: opts.startTime ?? DEFAULT_START_TIME, blockTimeSec: opts.blockSeconds ?? 2 })
  let swaps = 0
  let transfers = 0
  let creations = 0
  for (let i = 1; i <= blocks; i++) {
    const b = sim.nextBlock()
    creations += b.creations.length
    for (const log of b.logs) {
      const ev = decodeLog(log)
      if (ev?.type === 'v2_swap' || ev?.type === 'v3_swap' || ev?.type === 'v4_swap') swaps++
      if (ev?.type === 'erc20_transfer') transfers++
    }
  }
  return { swaps, transfers, creations }
}
