import { decodeLog } from '../../pipelines/decode/index.ts'
import { chainRows, memoryRowsState } from '../../pipelines/process/chain-rows.ts'
import type { FollowedContracts } from '../../pipelines/process/pool-registry.ts'
import { ChainBlock } from '../../pipelines/records/chain-block.ts'
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

/**
 * What an uninterrupted run stores from the simulator's blocks 1..`blocks` (seed 4663 unless
 * given): the chain processor's own rows (chainRows) over all of them in one pass, from the
 * blocks as the bus delivers them. Row counts per raw table and the WETH volume to the wei.
 */
export async function uninterruptedTotals(blocks: number, follow: FollowedContracts, opts: { seed?: number; startTime?: number; blockSeconds?: number } = {}) {
  const sim = createChainSimulator({ chainId: 4663, seed: opts.seed ?? 4663, startTime: opts.startTime ?? DEFAULT_START_TIME, blockTimeSec: opts.blockSeconds ?? 2 })
  const parsed = Array.from({ length: blocks }, () => ChainBlock.parse(JSON.parse(JSON.stringify(sim.nextBlock()))))
  const { tables } = await chainRows(4663, parsed, memoryRowsState(follow))
  const rows = (t: string) => tables.find(([name]) => name === t)![1]
  return {
    blocks: rows('chain_blocks').length,
    transfers: rows('erc20_transfers').length,
    swaps: rows('swaps').length,
    launches: rows('launches').length,
    pools: rows('pools').length,
    creations: rows('contract_creations').length,
    volume: rows('swaps').reduce((s, r) => s + BigInt(r.weth_in as string) + BigInt(r.weth_out as string), 0n).toString(),
  }
}

/** The same totals as stored in ClickHouse (every row counted, duplicates included). */
export const STORED_TOTALS = `SELECT
  (SELECT count() FROM chain_blocks) AS blocks, (SELECT count() FROM erc20_transfers) AS transfers,
  (SELECT count() FROM swaps) AS swaps, (SELECT count() FROM launches) AS launches, (SELECT count() FROM pools) AS pools,
  (SELECT count() FROM contract_creations) AS creations, (SELECT toString(sum(weth_in + weth_out)) FROM swaps) AS volume`
