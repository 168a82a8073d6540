import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import type { BusMessage } from '../../core/bus/types.ts'
import type { SolanaTrade, SolanaUniverseMember, SolUsdCandle } from '../../pipelines/records/solana.ts'
import { base58 } from '../../pipelines/sim/base58.ts'
import { deadLetterTopic, TOPICS } from '../../core/bus/topics.ts'
import { startSolanaEnv, type SolanaEnv } from '../setup/solana-env.ts'
import { until } from '../setup/until.ts'

/**
 * The Solana venue end to end in one process: records on the in-process bus, the Solana
 * processor (the one consumer framework) into chDB, and GET /solana/wallet-receipt through the
 * API. The expected receipts are worked out by hand below, in micro-USD, from the FIFO rules:
 * buys open lots at their USD cost, sells close the oldest first, a partly consumed lot gives
 * floor(remaining_cost × taken / remaining_qty), uncovered sell quantity has zero cost, and a SOL
 * leg is worth floor(lamports × close_e8 / 10^11) micro-USD at its 5-minute candle's close; a lot
 * is closed when a sell takes its last unit, and its hold is that sell's time − its buy's.
 */

const addr = (label: string) => base58(createHash('sha256').update(label).digest())
const sig = (label: string) => base58(createHash('sha512').update(label).digest())

/** A window start (a multiple of 300) and the three candles the trades below are valued at. */
const T0 = 1_749_999_900
const CANDLES: SolUsdCandle[] = [
  { pair: 'SOL/USD', start: T0, open: '149', high: '151', low: '148', close: '150' },
  { pair: 'SOL/USD', start: T0 + 300, open: '150', high: '152', low: '149.9', close: '151.23456789' },
  { pair: 'SOL/USD', start: T0 + 600, open: '151.23456789', high: '152', low: '149', close: '149.5' },
]

const A = addr('wallet-a') // partial exits across two lots, SOL and USD legs in three windows
const B = addr('wallet-b') // unmatched sells, two mints, one position left open
const C = addr('wallet-c') // in the universe, never traded
const D = addr('wallet-d') // trades, but outside the universe
const M1 = addr('mint-1')
const M2 = addr('mint-2')
const M3 = addr('mint-3')

let n = 0
function trade(wallet: string, mint: string, at: number, side: 'buy' | 'sell', qty: number, quote: 'SOL' | 'USD', amount: bigint): SolanaTrade {
  return { signature: sig(`tx-${n++}`), slot: 340_000_000 + (at - T0) * 2, block_time: at, wallet, mint, side, token_qty: String(qty), quote, quote_amount: amount.toString() }
}

const TRADES: SolanaTrade[] = [
  // A buys 1000 M1 for 2 SOL at close 150: 300 USD = 300_000_000 micro-USD (lot 1).
  trade(A, M1, T0 + 10, 'buy', 1000, 'SOL', 2_000_000_000n),
  // B sells 50 M2 it never bought, for 1 SOL at 150: 150_000_000 micro-USD, all unmatched (cost 0): +150_000_000, a win.
  trade(B, M2, T0 + 20, 'sell', 50, 'SOL', 1_000_000_000n),
  // B buys 100 M2 for 50 USD (lot, 50_000_000).
  trade(B, M2, T0 + 30, 'buy', 100, 'USD', 50_000_000n),
  // B buys 10 M3 for 0.5 SOL at 150: 75_000_000 micro-USD, kept open.
  trade(B, M3, T0 + 40, 'buy', 10, 'SOL', 500_000_000n),
  // D trades too, but is not in the universe.
  trade(D, M1, T0 + 50, 'buy', 5, 'USD', 1_000_000n),
  // A buys 500 M1 for 200 USD (lot 2, 200_000_000).
  trade(A, M1, T0 + 320, 'buy', 500, 'USD', 200_000_000n),
  // B sells 150 M2 for 60 USD: lot of 100 whole (50_000_000), 50 unmatched: +10_000_000, a win; held T0+30 -> T0+330 = 300 s.
  trade(B, M2, T0 + 330, 'sell', 150, 'USD', 60_000_000n),
  // A sells 600 M1 for 3 SOL at 151.23456789: floor(3e9 × 15123456789 / 1e11) = 453_703_703.
  // Lot 1 gives floor(300_000_000 × 600 / 1000) = 180_000_000: +273_703_703, a win (lot 1 stays open). Lot 1 keeps 400 at 120_000_000.
  trade(A, M1, T0 + 400, 'sell', 600, 'SOL', 3_000_000_000n),
  // A sells 700 M1 for 100 USD: lot 1's 400 (120_000_000; lot 1 closed, held T0+10 -> T0+650 = 640 s) and 300 of lot 2's
  // 500: floor(200_000_000 × 300 / 500) = 120_000_000. Cost 240_000_000: −140_000_000, a loss. Lot 2 keeps 200 at 80_000_000.
  trade(A, M1, T0 + 650, 'sell', 700, 'USD', 100_000_000n),
]

const EXPECTED = {
  [A]: { realized: 273_703_703n - 140_000_000n, sells: 2, winning: 1, unmatched: 0, open: 80_000_000n, holds: [640], trades: 4 },
  [B]: { realized: 150_000_000n + 10_000_000n, sells: 2, winning: 2, unmatched: 2, open: 75_000_000n, holds: [300], trades: 4 },
}

const UNIVERSE: SolanaUniverseMember[] = [A, B, C].map((wallet) => ({ wallet, venue: 'test-venue', listed_at: T0 }))

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

let env: SolanaEnv
let rt: SolanaEnv['rt']
let api: SolanaEnv['api']
let processor: SolanaEnv['processor']
let lostAcks = 0
const tradeInserts: number[] = []

beforeAll(async () => {
  env = await startSolanaEnv({
    // The first two acknowledgements of the trades insert are lost (the insert landed): the
    // framework retries the same batch under the same token.
    tradeSinkHooks: {
      afterInsert(_table, rows) {
        tradeInserts.push(rows)
        if (lostAcks < 2) {
          lostAcks++
          throw Object.assign(new Error('connection reset after the insert'), { code: 'ECONNRESET' })
        }
      },
    },
  })
  ;({ rt, api, processor } = env)
  // Merges stopped: a duplicate insert would show as extra rows, not be folded away by a merge.
  for (const t of ['solana_trades', 'solana_wallet_activity', 'solana_progress']) await rt.ch.command({ query: `SYSTEM STOP MERGES ${t}` })
  const publish = (topic: string, values: Array<{ key: string; value: unknown }>) => rt.bus.publish(topic, values.map((v) => ({ key: v.key, value: JSON.stringify(v.value) })))
  await publish(TOPICS.solanaUniverse, UNIVERSE.map((m) => ({ key: m.wallet, value: m })))
  // Trades before their candles: they wait (held) until the candles are in.
  await publish(TOPICS.solanaTrades, TRADES.map((t) => ({ key: 'venue', value: t })))
  await new Promise((r) => setTimeout(r, 500))
  const early = await queryRows<{ c: string }>(rt.ch, 'SELECT count() AS c FROM solana_trades')
  expect(Number(early[0]!.c)).toBe(0)
  await publish(TOPICS.pricesSolUsd, CANDLES.map((c) => ({ key: 'SOL/USD', value: c })))
  await until('the trades ingested', async () => ((await processor.lag()) === 0 && tradeInserts.length >= 3 ? true : undefined), 30_000)
}, 60_000)

afterAll(async () => env?.close())

const receipt = (address: string) => env.get(`/solana/wallet-receipt/${address}`)

describe('GET /solana/wallet-receipt/{address}', () => {
  it('answers each constructed wallet with the hand-computed FIFO in USD: partial exits, unmatched sells, SOL legs at their candle', async () => {
    for (const [wallet, e] of Object.entries(EXPECTED)) {
      const res = await receipt(wallet)
      expect(res.status).toBe(200)
      const { data, measured_through } = res.json()
      expect(data).toEqual({
        wallet,
        found: true,
        realized_net_usd: Number(e.realized) / 1e6,
        realized_net_micro_usd: e.realized.toString(),
        win_rate: e.winning / e.sells,
        winning_sells: e.winning,
        sells: e.sells,
        unmatched_sells: e.unmatched,
        open_cost_usd: Number(e.open) / 1e6,
        open_cost_micro_usd: e.open.toString(),
        median_hold_seconds: median(e.holds),
        style: 'scalper',
        trades: e.trades,
      })
      expect(measured_through).toBe(new Date((T0 + 650) * 1000).toISOString().replace('.000Z', 'Z'))
    }
  })

  it('a batch whose insert acknowledgement was lost and was retried under its token is counted once', async () => {
    // The one trades batch went in three times (two lost acknowledgements) under one token.
    expect(tradeInserts).toEqual([TRADES.length, TRADES.length, TRADES.length])
    const [rows] = await queryRows<{ c: string; u: string }>(rt.ch, 'SELECT count() AS c, uniqExact(signature) AS u FROM solana_trades')
    expect(Number(rows!.c)).toBe(TRADES.length)
    expect(Number(rows!.u)).toBe(TRADES.length)
    const activity = await queryRows<{ c: string }>(rt.ch, 'SELECT count() AS c FROM solana_wallet_activity')
    expect(Number(activity[0]!.c)).toBe(3) // A, B, D: one row each
    // The receipts above already read the deduplicated figures; read A once more to be explicit.
    expect((await receipt(A)).json().data.realized_net_micro_usd).toBe(EXPECTED[A]!.realized.toString())
  })

  it('a universe wallet without trades is found with zero figures; a wallet outside the universe is found:false (200)', async () => {
    const c = (await receipt(C)).json().data
    expect(c).toMatchObject({ wallet: C, found: true, realized_net_usd: 0, win_rate: null, sells: 0, open_cost_usd: 0, median_hold_seconds: null, style: null, trades: 0 })
    for (const w of [D, addr('nobody')]) {
      const res = await receipt(w)
      expect(res.status).toBe(200)
      expect(res.json().data).toMatchObject({ wallet: w, found: false, realized_net_usd: null, win_rate: null, open_cost_usd: null, style: null })
    }
  })

  it('answers 400 naming the parameter for an address that is not base58', async () => {
    for (const bad of ['0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl', 'short', `0x${'ab'.repeat(20)}`, `${A}${A}`]) {
      const res = await receipt(bad)
      expect(res.status, bad).toBe(400)
      expect(res.json().error).toMatchObject({ code: expect.stringMatching(/^invalid_/), details: { parameter: 'address', in: 'path' } })
    }
  })
})

describe('the FIFO state per wallet and mint', () => {
  const E = addr('wallet-e')
  const publish = (values: SolanaTrade[]) => rt.bus.publish(TOPICS.solanaTrades, values.map((t) => ({ key: 'venue', value: JSON.stringify(t) })))
  const settled = async (wallet: string, want: Record<string, unknown>) =>
    until(`the receipt of ${wallet}`, async () => {
      const data = (await receipt(wallet)).json().data
      return Object.entries(want).every(([k, v]) => data[k] === v) ? data : undefined
    }, 20_000)

  it('folds later batches onto the stored state, refolds a pair when a leg arrives older than its state, and ignores re-published trades', async () => {
    await rt.bus.publish(TOPICS.solanaUniverse, [{ key: E, value: JSON.stringify({ wallet: E, venue: 'test-venue', listed_at: T0 }) }])
    // Batch 1: E buys 100 for 10 USD. Batch 2: E sells 120 for 24 USD: 10_000_000 matched, 20 unmatched: +14_000_000.
    await publish([trade(E, M1, T0 + 100, 'buy', 100, 'USD', 10_000_000n)])
    await settled(E, { found: true, trades: 1, open_cost_micro_usd: '10000000' })
    await publish([trade(E, M1, T0 + 200, 'sell', 120, 'USD', 24_000_000n)])
    await settled(E, { trades: 2, realized_net_micro_usd: '14000000', unmatched_sells: 1, open_cost_micro_usd: '0' })
    // Batch 3: a buy of 50 for 5 USD at T0+150, older than the sell: in time order the sell takes lot 1 whole (10_000_000)
    // and 20 of the 50: floor(5_000_000 × 20 / 50) = 2_000_000. Realized 24_000_000 − 12_000_000 = 12_000_000, nothing
    // unmatched, 30 open at 3_000_000; lot 1 closed after 100 s.
    await publish([trade(E, M1, T0 + 150, 'buy', 50, 'USD', 5_000_000n)])
    const e = await settled(E, { trades: 3 })
    expect(e).toMatchObject({ realized_net_micro_usd: '12000000', sells: 1, winning_sells: 1, unmatched_sells: 0, open_cost_micro_usd: '3000000', median_hold_seconds: 100 })
    // Every trade published again (a producer retrying): new offsets, another batch token; the FIFO counts each trade once.
    const before = await Promise.all([A, B, E].map(async (w) => (await receipt(w)).json().data))
    await publish(TRADES)
    await until('the re-published trades consumed', async () => ((await processor.lag()) === 0 ? true : undefined))
    api.deps.solana.advanced(1)
    expect(await Promise.all([A, B, E].map(async (w) => (await receipt(w)).json().data))).toEqual(before)
  })
})

describe('the Solana trades consumer', () => {
  it('dead-letters invalid records with the reason and ingests the valid ones behind them', async () => {
    const dead: BusMessage[] = []
    const sub = await rt.bus.subscribe({ groupId: 'dlq-reader', topics: [deadLetterTopic(TOPICS.solanaTrades)], fromBeginning: true, async onBatch(b) { dead.push(...b.messages) } })
    const ok = trade(A, M2, T0 + 700, 'buy', 7, 'USD', 7_000_000n)
    const bad = [
      'not json',
      JSON.stringify({ ...ok, signature: sig('bad-1'), wallet: '0OIl-not-base58-at-all-0OIl-0OIl0' }),
      JSON.stringify({ ...ok, signature: sig('bad-2'), token_qty: '-5' }),
      JSON.stringify({ ...ok, signature: sig('bad-3'), side: 'swap' }),
      // Its window (T0 - 300) has no candle while later windows do: it can never be valued.
      JSON.stringify({ ...ok, signature: sig('bad-4'), block_time: T0 - 100, quote: 'SOL' }),
    ]
    await rt.bus.publish(TOPICS.solanaTrades, [...bad.map((value) => ({ key: 'venue', value })), { key: 'venue', value: JSON.stringify(ok) }])
    await until('the dead letters', () => (dead.length >= bad.length ? true : undefined), 20_000)
    await sub.stop()
    expect(dead.map((d) => d.value)).toEqual(bad)
    expect(dead.map((d) => d.headers?.reason?.split(':')[0])).toEqual(['invalid_json', 'invalid_record', 'invalid_record', 'invalid_record', 'no_sol_usd_candle'])
    await until('the valid trade', async () => {
      const [r] = await queryRows<{ c: string }>(rt.ch, 'SELECT count() AS c FROM solana_trades WHERE signature = {s:String}', { s: ok.signature })
      return Number(r!.c) === 1 ? true : undefined
    })
  })
})
