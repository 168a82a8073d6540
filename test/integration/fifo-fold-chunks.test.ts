import { describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { createClickHouseSink } from '../../pipelines/sink/clickhouse-sink.ts'
import { createMetrics } from '../../core/metrics.ts'
import { foldBlocks, pairsOfSwaps } from '../../products/wallet/fifo-refresh.ts'
import { hex } from '../setup/hex.ts'
import { migratedChDBPerFile } from '../setup/chdb.ts'
import { randomWei, refFold, refLegsByPair, seeded } from '../setup/fifo-reference.ts'
import { watchedEngine } from '../setup/watched-engine.ts'

/**
 * A batch with more wallet-tokens than one fold statement takes (a backfill batch: thousands of
 * pairs) is folded in parts, and every pair's state still equals the independent FIFO's to the
 * wei. A pair with more legs than one statement takes per pair is folded again from where the
 * first statement stopped.
 */
const CHAIN = 4663
const engine = migratedChDBPerFile()


/** The engine client, counting the statements that write (the folds). */
function counting(of: ClickHouseClient): { ch: ClickHouseClient; commands: () => number } {
  let n = 0
  return { ch: watchedEngine(of, 'command', () => n++), commands: () => n }
}

type Swap = { chain_id: number; block_number: number; log_index: number; tx_hash: string; pool: string; protocol: string; token: string; trader: string; token_in: string; token_out: string; weth_in: string; weth_out: string; block_time: number }

/** Each pair buys, then sells part or all of it (or more than it bought): `legsPerPair` legs each. */
function swapsOf(pairs: Array<[string, string]>, legsPerPair: number, firstBlock: number, seed: number): { swaps: Swap[]; lastBlock: number } {
  const rnd = seeded(seed)
  const swaps: Swap[] = []
  let block = firstBlock
  let log = 0
  for (let leg = 0; leg < legsPerPair; leg++) {
    for (const [trader, token] of pairs) {
      if (log >= 500) [block, log] = [block + 1, 0]
      const buy = leg % 2 === 0
      const qty = randomWei(rnd, 10n ** 15n, 10n ** 21n)
      const weth = randomWei(rnd, 10n ** 14n, 10n ** 18n)
      swaps.push({
        chain_id: CHAIN, block_number: block, log_index: log++, tx_hash: hex(block * 1000 + log, 64), pool: hex(0xc000, 40), protocol: 'v2', token, trader,
        token_in: buy ? '0' : qty.toString(), token_out: buy ? qty.toString() : '0', weth_in: buy ? weth.toString() : '0', weth_out: buy ? '0' : weth.toString(), block_time: 1_700_000_000 + block * 2,
      })
    }
  }
  return { swaps, lastBlock: block }
}

async function ingestAndFold(swaps: Swap[], firstBlock: number, lastBlock: number, fold: ClickHouseClient): Promise<void> {
  const blocks = Array.from({ length: lastBlock - firstBlock + 1 }, (_, i) => firstBlock + i)
  await createClickHouseSink(engine.ch, createMetrics()).insertBatch(`chunks-${firstBlock}`, [
    ['swaps', swaps],
    ['chain_blocks', blocks.map((n) => ({ chain_id: CHAIN, number: n, hash: hex(n, 64), parent_hash: hex(n - 1, 64), timestamp: 1_700_000_000 + n * 2, log_count: 0 }))],
  ])
  await foldBlocks(fold, CHAIN, firstBlock, lastBlock, pairsOfSwaps(swaps))
}

/** Every pair's folded state against the reference FIFO over its swaps. */
async function expectReference(swaps: Swap[]): Promise<number> {
  const legs = refLegsByPair(swaps, (s) => s.block_time)
  const got = await queryRows<{ wallet: string; token: string; legs: string; state: { lots: Array<{ qty: string; cost: string }>; realized: string; sells: string; unmatched_qty: string } }>(
    engine.ch,
    'SELECT wallet, token, legs, state FROM fifo_state FINAL WHERE chain_id = {c:UInt32} AND wallet IN {w:Array(String)}',
    { c: CHAIN, w: [...new Set(swaps.map((s) => s.trader))] },
  )
  expect(got.length).toBe(legs.size)
  for (const g of got) {
    const k = `${g.wallet}/${g.token}`
    const want = refFold(legs.get(k)!).state
    expect({ legs: Number(g.legs), realized: BigInt(g.state.realized), sells: Number(g.state.sells), unmatched: BigInt(g.state.unmatched_qty), lots: g.state.lots.map((l) => [BigInt(l.qty), BigInt(l.cost)]) }, k).toEqual({
      legs: legs.get(k)!.length, realized: want.realized, sells: want.sells, unmatched: want.unmatchedQty, lots: want.lots.map((l) => [l.qty, l.cost]),
    })
  }
  return got.length
}

/** Ingest `legsPerPair` legs of each pair from `firstBlock`, fold them: the fold statements run, and the pairs checked. */
async function foldChecked(pairs: Array<[string, string]>, legsPerPair: number, firstBlock: number, seed: number): Promise<{ statements: number; pairs: number }> {
  const { swaps, lastBlock } = swapsOf(pairs, legsPerPair, firstBlock, seed)
  const c = counting(engine.ch)
  await ingestAndFold(swaps, firstBlock, lastBlock, c.ch)
  return { statements: c.commands(), pairs: await expectReference(swaps) }
}

describe('the FIFO fold of a batch of many pairs', () => {
  it('folds 5,000 pairs of 3 legs in parts, each to the reference to the wei', async () => {
    const pairs = Array.from({ length: 5_000 }, (_, i): [string, string] => [hex(0xa00000 + Math.floor(i / 2), 40), hex(0xb000 + (i % 2), 40)])
    const { statements, pairs: checked } = await foldChecked(pairs, 3, 1, 7)
    // In parts: no statement takes every pair (each must answer within the client's timeout).
    expect(statements).toBeGreaterThan(1)
    expect(checked).toBe(5_000)
  }, 120_000)

  it('a pair with more legs than a statement folds per pair is folded again from where it stopped', async () => {
    const pairs: Array<[string, string]> = [[hex(0xd00001, 40), hex(0xb100, 40)], [hex(0xd00002, 40), hex(0xb100, 40)]]
    expect(await foldChecked(pairs, 2_100, 100_000, 11)).toEqual({ statements: 2, pairs: 2 })
  }, 120_000)
})
