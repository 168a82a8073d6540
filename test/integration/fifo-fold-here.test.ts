import { describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { createClickHouseSink } from '../../pipelines/sink/clickhouse-sink.ts'
import { createMetrics } from '../../core/metrics.ts'
import { foldBlocks, foldPairs, pairsOfSwaps } from '../../products/wallet/fifo-refresh.ts'
import { hex } from '../setup/hex.ts'
import { migratedChDBPerFile } from '../setup/chdb.ts'
import { randomWei, seeded } from '../setup/fifo-reference.ts'
import { watchedEngine } from '../setup/watched-engine.ts'

/**
 * A live batch's few wallet-tokens are folded in the processor (products/wallet/fifo-fold.ts),
 * a backfill's in the engine (fifo-sql.ts): the same swaps, batch after batch, folded one way on
 * one chain and the other way on another, leave the same states, the same matched sells and the
 * same hold counts.
 */
const HERE = 4663
const ENGINE = 4664
const engine = migratedChDBPerFile()

type Swap = Record<string, string | number>

/** Batch `b`'s swaps for `pairs` on `chain`: random buys and sells (partial, whole, more than is open). */
function batchSwaps(chain: number, pairs: Array<[string, string]>, b: number, rnd: () => number): Swap[] {
  const swaps: Swap[] = []
  for (let block = b * 10; block < b * 10 + 3; block++) {
    let log = 0
    for (const [trader, token] of pairs) {
      if (rnd() < 0.4) continue
      const buy = rnd() < 0.55
      const qty = randomWei(rnd, 10n ** 15n, 10n ** 21n)
      const weth = rnd() < 0.05 ? 0n : randomWei(rnd, 10n ** 14n, 10n ** 18n)
      swaps.push({
        chain_id: chain, block_number: block, log_index: log++, tx_hash: hex(block * 1000 + log, 64), pool: hex(0xc000, 40), protocol: 'v2', token, trader,
        token_in: buy ? '0' : qty.toString(), token_out: buy ? qty.toString() : '0', weth_in: buy ? weth.toString() : '0', weth_out: buy ? '0' : weth.toString(),
        block_time: 1_700_000_000 + block * 97,
      })
    }
  }
  return swaps
}

/** Batch `b`'s rows inserted (under `token`: another token inserts them again, as a view replayed). */
async function ingest(chain: number, b: number, swaps: Swap[], token = `here-${chain}-${b}`): Promise<void> {
  const blocks = [b * 10, b * 10 + 1, b * 10 + 2]
  await createClickHouseSink(engine.ch, createMetrics()).insertBatch(token, [
    ['swaps', swaps],
    ['chain_blocks', blocks.map((n) => ({ chain_id: chain, number: n, hash: hex(n, 64), parent_hash: hex(n - 1, 64), timestamp: 1_700_000_000 + n * 97, log_count: 0 }))],
  ])
}

/** What each way leaves, chain id and fold version aside. */
async function stored(chain: number): Promise<unknown[]> {
  const p = { c: chain }
  return Promise.all([
    queryRows(engine.ch, 'SELECT wallet, token, through_pos, legs, toString(state) AS state, unmatched_sells FROM fifo_state FINAL WHERE chain_id = {c:UInt32} ORDER BY wallet, token', p),
    queryRows(engine.ch, 'SELECT * EXCEPT (chain_id, version) FROM fifo_sells FINAL WHERE chain_id = {c:UInt32} ORDER BY wallet, block_number, log_index, token', p),
    queryRows(engine.ch, 'SELECT wallet, token, hold_seconds, sum(lots) AS lots FROM fifo_hold_counts WHERE chain_id = {c:UInt32} GROUP BY ALL ORDER BY ALL', p),
  ])
}

describe('the FIFO fold of a live batch, in the processor', () => {
  it('leaves the same states, sells and holds as the engine\'s fold, batch after batch', async () => {
    const pairs = Array.from({ length: 40 }, (_, i): [string, string] => [hex(0xa10000 + (i % 13), 40), hex(0xb200 + (i % 4), 40)])
    const rnd = seeded(77)
    let commands = 0
    const counted: ClickHouseClient = watchedEngine(engine.ch, 'command', () => commands++)
    for (let b = 1; b <= 6; b++) {
      const swaps = batchSwaps(HERE, pairs, b, rnd)
      await ingest(HERE, b, swaps)
      await ingest(ENGINE, b, swaps.map((s) => ({ ...s, chain_id: ENGINE })))
      // Batch 4's legs twice in wallet_legs (not yet merged away): each is folded once.
      if (b === 4) {
        await ingest(HERE, b, swaps, 'again-here')
        await ingest(ENGINE, b, swaps.map((s) => ({ ...s, chain_id: ENGINE })), 'again-engine')
      }
      const traded = pairsOfSwaps(swaps as never)
      expect(traded.pairs.length).toBeGreaterThan(0)
      // The batch step (few pairs: folded here, no statement folds) against the engine's fold.
      const before = commands
      await foldBlocks(counted, HERE, b * 10, b * 10 + 2, traded)
      expect(commands).toBe(before)
      await foldPairs(counted, ENGINE, traded.pairs, b * 10)
      expect(commands).toBeGreaterThan(before)
      // Replayed: the legs are behind each state's position, so nothing changes.
      if (b === 3) await foldBlocks(counted, HERE, b * 10, b * 10 + 2, traded)
    }
    const [here, there] = await Promise.all([stored(HERE), stored(ENGINE)])
    expect(here).toEqual(there)
    const [states, sells, holds] = here as unknown[][]
    expect(states!.length).toBeGreaterThan(30)
    expect(sells!.length).toBeGreaterThan(50)
    expect(holds!.length).toBeGreaterThan(20)
  }, 120_000)
})
