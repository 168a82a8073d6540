import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { createClickHouseSink } from '../../pipelines/sink/clickhouse-sink.ts'
import { createMetrics } from '../../core/metrics.ts'
import { foldBlocks } from '../../products/wallet/fifo-refresh.ts'
import { rollbackChain } from '../../pipelines/process/chain-rollback.ts'
import { hex } from '../setup/hex.ts'
import { migratedChDB } from '../setup/chdb.ts'
import { randomWei, refFold, refLegOfSwap, refWallet, seeded, type RefLeg } from '../setup/fifo-reference.ts'
import { readHoldsOf } from '../../products/wallet/wallet-receipt.ts'

/**
 * The differential test of issue 12: random swap histories (partial and full exits, re-entries,
 * routed A -> WETH -> B trades, transfers in and out, sells of transferred-in tokens) go in as raw
 * swaps, batch by batch as the chain processor inserts them; the FIFO state ClickHouse keeps must
 * equal an independent TypeScript FIFO over the same swap events, to the wei, for every wallet and
 * token, also after a replayed batch and after a reorg.
 */
const CHAIN = 4663
let ch: ClickHouseClient
let close: () => Promise<void>
const sink = () => createClickHouseSink(ch, createMetrics())

beforeAll(async () => {
  ;({ ch, close } = await migratedChDB())
})
afterAll(async () => close?.())

const wallets = Array.from({ length: 7 }, (_, i) => hex(0xa000 + i, 40))
const tokens = Array.from({ length: 4 }, (_, i) => hex(0xb000 + i, 40))
const protocols = ['v2', 'v3', 'v4']

type Swap = { chain_id: number; block_number: number; log_index: number; tx_hash: string; pool: string; protocol: string; token: string; trader: string; token_in: string; token_out: string; weth_in: string; weth_out: string; block_time: number }
type Transfer = { chain_id: number; block_number: number; log_index: number; tx_hash: string; token: string; from_address: string; to_address: string; value: string; block_time: number }

/** Random blocks of swaps and transfers; balances are tracked so sells are partial, full or larger than any lot. */
function world(seed: number, firstBlock: number, blocks: number, startTime: number) {
  const rnd = seeded(seed)
  const held = new Map<string, bigint>()
  const bal = (w: string, t: string) => held.get(`${w}/${t}`) ?? 0n
  const add = (w: string, t: string, d: bigint) => held.set(`${w}/${t}`, bal(w, t) + d)
  const out: Array<{ number: number; time: number; swaps: Swap[]; transfers: Transfer[] }> = []
  for (let b = firstBlock; b < firstBlock + blocks; b++) {
    const time = startTime + (b - firstBlock) * 600 + Math.floor(rnd() * 300)
    const swaps: Swap[] = []
    const transfers: Transfer[] = []
    let log = 0
    const swap = (tx: string, w: string, t: string, tokenIn: bigint, tokenOut: bigint, wethIn: bigint, wethOut: bigint) =>
      swaps.push({ chain_id: CHAIN, block_number: b, log_index: log++, tx_hash: tx, pool: hex(0xc000 + tokens.indexOf(t), 40), protocol: protocols[Math.floor(rnd() * 3)]!, token: t, trader: w, token_in: tokenIn.toString(), token_out: tokenOut.toString(), weth_in: wethIn.toString(), weth_out: wethOut.toString(), block_time: time })
    for (let i = Math.floor(rnd() * 5); i > 0; i--) {
      const w = wallets[Math.floor(rnd() * wallets.length)]!
      const t = tokens[Math.floor(rnd() * tokens.length)]!
      const tx = hex(b * 1000 + log, 64)
      const r = rnd()
      const h = bal(w, t)
      const sellQty = () => (r < 0.55 && h > 1n ? 1n + randomWei(rnd, 0n, h - 1n) : r < 0.7 && h > 0n ? h : h + randomWei(rnd, 1n, 10n ** 21n))
      if (r < 0.35) {
        const q = randomWei(rnd, 10n ** 15n, 10n ** 22n)
        swap(tx, w, t, 0n, q, randomWei(rnd, 10n ** 14n, 10n ** 18n), 0n)
        add(w, t, q)
      } else if (r < 0.75) {
        const q = sellQty()
        swap(tx, w, t, q, 0n, 0n, rnd() < 0.05 ? 0n : randomWei(rnd, 10n ** 14n, 2n * 10n ** 18n))
        add(w, t, h >= q ? -q : -h)
      } else if (r < 0.88) {
        // Routed: A -> WETH -> B in one transaction, the hop's WETH valuing both legs.
        const b2 = tokens[(tokens.indexOf(t) + 1 + Math.floor(rnd() * (tokens.length - 1))) % tokens.length]!
        const q = sellQty()
        const hop = randomWei(rnd, 10n ** 14n, 10n ** 18n)
        const qb = randomWei(rnd, 10n ** 15n, 10n ** 22n)
        swap(tx, w, t, q, 0n, 0n, hop)
        swap(tx, w, b2, 0n, qb, hop, 0n)
        add(w, t, h >= q ? -q : -h)
        add(w, b2, qb)
      } else {
        // Transfers in and out: no legs, but they change what later sells find.
        const other = wallets[Math.floor(rnd() * wallets.length)]!
        const v = rnd() < 0.5 && h > 0n ? randomWei(rnd, 1n, h) : randomWei(rnd, 1n, 10n ** 21n)
        transfers.push({ chain_id: CHAIN, block_number: b, log_index: log++, tx_hash: tx, token: t, from_address: rnd() < 0.5 ? w : other, to_address: rnd() < 0.5 ? other : w, value: v.toString(), block_time: time })
        add(transfers.at(-1)!.to_address, t, v)
        add(transfers.at(-1)!.from_address, t, -(v < bal(transfers.at(-1)!.from_address, t) ? v : bal(transfers.at(-1)!.from_address, t)))
      }
    }
    out.push({ number: b, time, swaps, transfers })
  }
  return out
}

type Block = ReturnType<typeof world>[number]

/**
 * A batch as the chain processor inserts it: the fold starts once the swaps' insert is
 * acknowledged, beside the other tables' inserts, and the watermark table (chain_blocks) is
 * acknowledged after it started.
 */
async function ingest(blocks: Block[], token: string): Promise<void> {
  const acknowledged: string[] = []
  let folding: Promise<unknown> | undefined
  await sink().insertBatch(token, [
    ['swaps', blocks.flatMap((b) => b.swaps)],
    ['erc20_transfers', blocks.flatMap((b) => b.transfers)],
    ['chain_blocks', blocks.map((b) => ({ chain_id: CHAIN, number: b.number, hash: hex(b.number + (token.includes('fork') ? 7 : 0), 64), parent_hash: hex(b.number - 1, 64), timestamp: b.time, log_count: b.swaps.length + b.transfers.length }))],
  ], {
    onInserted: (table) => {
      acknowledged.push(table)
      if (table === 'swaps') folding = foldBlocks(ch, CHAIN, blocks[0]!.number, blocks[blocks.length - 1]!.number)
    },
  })
  expect(acknowledged.at(-1)).toBe('chain_blocks')
  expect(folding, 'the fold started before the watermark table was in').toBeDefined()
  await folding
}

/** The reference: each swap event is a leg of its sender, taken from the raw swap fields. */
function expected(blocks: Block[]) {
  const legs = new Map<string, Array<RefLeg & { block: number; log: number }>>()
  for (const b of blocks) {
    for (const s of b.swaps) {
      if (BigInt(s.token_in) === BigInt(s.token_out)) continue
      const leg = refLegOfSwap(s, s.block_time)
      const k = `${s.trader}/${s.token}`
      if (!legs.has(k)) legs.set(k, [])
      legs.get(k)!.push({ ...leg, block: s.block_number, log: s.log_index })
    }
  }
  return new Map([...legs].map(([k, l]) => [k, { legs: l, ...refFold(l) }]))
}

async function compare(blocks: Block[]): Promise<{ pairs: number; sells: number; unmatched: number; partial: number }> {
  const want = expected(blocks)
  const got = await queryRows<{ wallet: string; token: string; state: { lots: Array<{ qty: string; cost: string; opened_at: number }>; realized: string; sells: string; winning_sells: string; unmatched_qty: string; matched_cost: string; spent: string; received: string }; legs: string; unmatched_sells: string }>(
    ch,
    `SELECT wallet, token, state, legs, unmatched_sells FROM fifo_state FINAL WHERE chain_id = {c:UInt32} ORDER BY wallet, token`,
    { c: CHAIN },
  )
  const sells = await queryRows<{ wallet: string; token: string; block_number: string; log_index: number; matched_cost: string; unmatched_qty: string; realized: string; closed_holds: number[] }>(
    ch,
    `SELECT wallet, token, block_number, log_index, matched_cost, unmatched_qty, realized, closed_holds FROM fifo_sells FINAL WHERE chain_id = {c:UInt32} ORDER BY wallet, token, block_number, log_index`,
    { c: CHAIN },
  )
  const holdCounts = await queryRows<{ wallet: string; token: string; hold: number; lots: string }>(
    ch,
    'SELECT wallet, token, hold_seconds AS hold, sum(lots) AS lots FROM fifo_hold_counts WHERE chain_id = {c:UInt32} GROUP BY wallet, token, hold ORDER BY wallet, token, hold',
    { c: CHAIN },
  )
  const gotPairs = got.filter((g) => Number(g.legs) > 0)
  expect(gotPairs.map((g) => `${g.wallet}/${g.token}`).sort()).toEqual([...want.keys()].sort())
  let nSells = 0
  let unmatched = 0
  let partial = 0
  for (const g of gotPairs) {
    const k = `${g.wallet}/${g.token}`
    const w = want.get(k)!
    const s = w.state
    expect({
      lots: g.state.lots.map((l) => [BigInt(l.qty), BigInt(l.cost), l.opened_at]),
      realized: BigInt(g.state.realized), sells: Number(g.state.sells), winning: Number(g.state.winning_sells),
      unmatched: BigInt(g.state.unmatched_qty), matched: BigInt(g.state.matched_cost), spent: BigInt(g.state.spent), received: BigInt(g.state.received),
    }, k).toEqual({
      lots: s.lots.map((l) => [l.qty, l.cost, l.openedAt]),
      realized: s.realized, sells: s.sells, winning: s.winningSells, unmatched: s.unmatchedQty, matched: s.matchedCost, spent: s.spent, received: s.received,
    })
    const mine = sells.filter((x) => x.wallet === g.wallet && x.token === g.token)
    expect(mine.map((x) => [Number(x.block_number), x.log_index, BigInt(x.matched_cost), BigInt(x.unmatched_qty), BigInt(x.realized), x.closed_holds]), k).toEqual(
      w.sells.map((x) => [w.legs[x.leg - 1]!.block, w.legs[x.leg - 1]!.log, x.matchedCost, x.unmatchedQty, x.realized, x.closedHolds]),
    )
    // What the receipt reads instead of the sells: the count of sells with unmatched quantity, and the holds counted per hold.
    expect(Number(g.unmatched_sells), k).toBe(w.sells.filter((x) => x.unmatchedQty > 0n).length)
    const counted = new Map<number, number>()
    for (const h of w.sells.flatMap((x) => x.closedHolds)) counted.set(h, (counted.get(h) ?? 0) + 1)
    expect(holdCounts.filter((x) => x.wallet === g.wallet && x.token === g.token).map((x) => [x.hold, Number(x.lots)]), k).toEqual([...counted].sort((a, b) => a[0] - b[0]))
    nSells += w.sells.length
    unmatched += w.sells.filter((x) => x.unmatchedQty > 0n).length
    partial += w.sells.filter((x) => x.closedHolds.length === 0 && x.unmatchedQty === 0n).length
  }
  // The receipt's hold figures per wallet, overall and per token, against the reference's closed holds.
  for (const wallet of new Set(gotPairs.map((g) => g.wallet))) {
    const mine = [...want].filter(([k]) => k.startsWith(`${wallet}/`))
    const got = (await readHoldsOf(ch, CHAIN, [wallet])).get(wallet)!
    const all = refWallet(mine.map(([, w]) => w.legs))
    expect(got.all, wallet).toEqual({ median: all.medianHold, lots: all.holds.length })
    for (const [k, w] of mine) {
      const one = refWallet([w.legs])
      expect(got.byToken.get(k.slice(wallet.length + 1)) ?? { median: null, lots: 0 }, k).toEqual({ median: one.medianHold, lots: one.holds.length })
    }
  }
  return { pairs: gotPairs.length, sells: nSells, unmatched, partial }
}

describe('FIFO kept by ClickHouse from raw swaps (differential)', () => {
  const blocks = world(12, 1, 120, 1_735_689_600)

  it('agrees with the TypeScript FIFO for every wallet and token, batch after batch', async () => {
    for (let i = 0; i < blocks.length; i += 15) await ingest(blocks.slice(i, i + 15), `b${i}`)
    const n = await compare(blocks)
    expect(n.pairs).toBe(wallets.length * tokens.length)
    expect(n.unmatched).toBeGreaterThan(5)
    expect(n.partial).toBeGreaterThan(10)
    // Routed trades are there: transactions with two swaps.
    const txs = blocks.flatMap((b) => b.swaps.map((s) => s.tx_hash))
    expect(txs.length - new Set(txs).size).toBeGreaterThan(5)
  })

  it('a replayed batch changes no figure', async () => {
    const before = await queryRows(ch, 'SELECT wallet, token, toString(state) AS s FROM fifo_state FINAL ORDER BY wallet, token')
    await ingest(blocks.slice(30, 45), 'b30')
    await ingest(blocks.slice(105, 120), 'b105')
    expect(await queryRows(ch, 'SELECT wallet, token, toString(state) AS s FROM fifo_state FINAL ORDER BY wallet, token')).toEqual(before)
    await compare(blocks)
  })

  it('a reorg rolls the affected legs back, and the new fork is folded on what survived', async () => {
    await rollbackChain(ch, CHAIN, 91, { old: hex(91, 64), new: hex(98, 64) })
    await compare(blocks.slice(0, 90))
    const fork = world(99, 91, 30, blocks[89]!.time + 600)
    await ingest(fork.slice(0, 15), 'fork1')
    await ingest(fork.slice(15), 'fork2')
    await compare([...blocks.slice(0, 90), ...fork])
  })
})
