import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSolanaServing } from '../../products/wallet/solana-serving.ts'
import { createRuntime, type Runtime } from '../../bin/runtime.ts'
import { loadConfig } from '../../core/config.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { foldSolana, planSolanaFold } from '../../pipelines/process/solana/fifo-refresh.ts'
import type { SolanaTradeRow } from '../../pipelines/process/solana/usd-leg-step.ts'
import { base58 } from '../../pipelines/sim/base58.ts'
import { refWallet, seeded, type RefLeg } from '../setup/fifo-reference.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * The Solana FIFO's batch steps (pipelines/process/solana/fifo-refresh.ts) under the deliveries
 * a consumer really sees, against the independent FIFO (test/setup/fifo-reference.ts) over every
 * wallet's trades in key order: batches of random size, batches redelivered under another token,
 * processes that stop after the late-leg lookup (and its deletes) or after the insert and before
 * the fold (the records then delivered again, at times in smaller batches), and legs held back and delivered after later ones (late legs).
 */

const WALLETS = Array.from({ length: 5 }, (_, i) => base58(createHash('sha256').update(`fold/wallet/${i}`).digest()))
const MINTS = Array.from({ length: 3 }, (_, i) => base58(createHash('sha256').update(`fold/mint/${i}`).digest()))
const T0 = 1_760_000_000

function trades(rnd: () => number, n: number): SolanaTradeRow[] {
  const out: SolanaTradeRow[] = []
  const held = new Map<string, bigint>()
  let t = T0
  for (let i = 0; i < n; i++) {
    // Several trades may share a block time (ordered then by slot, signature and side).
    t += rnd() < 0.3 ? 0 : 1 + Math.floor(rnd() * 3_600)
    const wallet = WALLETS[Math.floor(rnd() * WALLETS.length)]!
    const mint = MINTS[Math.floor(rnd() * MINTS.length)]!
    const have = held.get(`${wallet}/${mint}`) ?? 0n
    // Mostly buys when flat, sells of part, all or more than held (unmatched quantity) otherwise.
    const sell = have > 0n ? rnd() < 0.55 : rnd() < 0.1
    const qty = sell ? [have / 3n + 1n, have, have + 7n][Math.floor(rnd() * 3)]! : BigInt(1 + Math.floor(rnd() * 10_000))
    held.set(`${wallet}/${mint}`, sell ? (qty > have ? 0n : have - qty) : have + qty)
    const usd = BigInt(1 + Math.floor(rnd() * 5_000_000_000))
    out.push({
      signature: base58(createHash('sha512').update(`fold/tx/${i}`).digest()),
      slot: 360_000_000 + (t - T0) * 2 + Math.floor(rnd() * 2),
      block_time: t,
      wallet,
      mint,
      side: sell ? 'sell' : 'buy',
      token_qty: qty.toString(),
      quote: 'USD',
      quote_amount: usd.toString(),
      usd_micro: usd.toString(),
      sol_usd_close: '0',
    })
  }
  return out
}

const order = (a: SolanaTradeRow, b: SolanaTradeRow) =>
  a.block_time - b.block_time || a.slot - b.slot || (a.signature < b.signature ? -1 : a.signature > b.signature ? 1 : 0) || (a.side === 'sell' ? -1 : 1) - (b.side === 'sell' ? -1 : 1)

let rt: Runtime
let dir: ReturnType<typeof tempDir>

beforeAll(async () => {
  dir = tempDir()
  rt = await createRuntime(loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'silent' }), 'test')
  await rt.ch.insert({ table: 'solana_universe', values: WALLETS.map((wallet) => ({ wallet, venue: 'test', listed_at: T0 })), format: 'JSONEachRow' })
}, 60_000)

afterAll(async () => {
  await rt?.close()
  dir?.cleanup()
})

describe('the Solana FIFO batch steps', () => {
  it('agree with the independent FIFO across redeliveries, stops between steps and late legs', async () => {
    const rnd = seeded(20261123)
    const all = trades(rnd, 900)
    const { ch } = rt
    let tokens = 0
    const counts = { batches: 0, redelivered: 0, stoppedAfterPlan: 0, stoppedAfterInsert: 0, split: 0, latePairs: 0 }

    /** The processor's write: plan, insert under the batch token, fold; `stopAfter` ends it early (a killed process). */
    async function write(rows: SolanaTradeRow[], token: string, stopAfter?: 'plan' | 'insert') {
      const plan = await planSolanaFold(ch, rows)
      counts.latePairs += plan.late
      if (stopAfter === 'plan') return
      await ch.insert({ table: 'solana_trades', values: rows, format: 'JSONEachRow', clickhouse_settings: { insert_deduplication_token: token } })
      if (stopAfter === 'insert') return
      await foldSolana(ch, plan, token)
    }

    const heldBack: SolanaTradeRow[] = []
    const delivered: SolanaTradeRow[][] = []
    for (let i = 0; i < all.length; ) {
      const size = 1 + Math.floor(rnd() * 40)
      const batch: SolanaTradeRow[] = []
      for (const r of all.slice(i, i + size)) (rnd() < 0.03 ? heldBack : batch).push(r)
      i += size
      // A leg held back earlier arrives now, after later legs of its pair (a late leg).
      if (heldBack.length && rnd() < 0.5) batch.push(heldBack.shift()!)
      if (batch.length === 0) continue
      const token = `fold-test:${tokens++}`
      const stop = rnd()
      // A killed process: the same records are delivered again under the same token.
      if (stop < 0.15) {
        await write(batch, token, 'plan')
        counts.stoppedAfterPlan++
      } else if (stop < 0.3) {
        await write(batch, token, 'insert')
        counts.stoppedAfterInsert++
      }
      if (stop < 0.3 && rnd() < 0.5) {
        // The redelivery is re-formed smaller: the first records, then the rest in the next batch.
        const cut = Math.ceil(batch.length / 2)
        await write(batch.slice(0, cut), `${token}:a`)
        await write(batch.slice(cut), `${token}:b`)
        counts.split++
      } else await write(batch, token)
      counts.batches++
      delivered.push(batch)
      // A producer's retry: an earlier batch published again (new offsets, another token).
      if (rnd() < 0.2) {
        await write(delivered[Math.floor(rnd() * delivered.length)]!, `fold-test:${tokens++}`)
        counts.redelivered++
      }
    }
    if (heldBack.length) await write(heldBack, `fold-test:${tokens++}`)
    expect(counts.latePairs).toBeGreaterThan(3)
    expect(counts.stoppedAfterPlan).toBeGreaterThan(2)
    expect(counts.stoppedAfterInsert).toBeGreaterThan(2)
    expect(counts.redelivered).toBeGreaterThan(2)
    expect(counts.split).toBeGreaterThan(2)

    const serving = createSolanaServing({ ch, maxEntries: 100 })
    let sells = 0
    for (const wallet of WALLETS) {
      const mine = all.filter((r) => r.wallet === wallet).sort(order)
      const want = refWallet(MINTS.map((mint) => mine.filter((r) => r.mint === mint).map((r): RefLeg => ({ side: r.side === 'buy' ? 1 : -1, qty: BigInt(r.token_qty), cost: BigInt(r.usd_micro), t: r.block_time }))))
      sells += want.sells
      const r = await serving.receipt(wallet)
      expect(r, wallet).toEqual({
        found: true,
        trades: mine.length,
        realizedMicroUsd: want.realized,
        sells: want.sells,
        winningSells: want.winningSells,
        unmatchedSells: want.unmatchedSells,
        openCostMicroUsd: want.openCost,
        medianHoldSeconds: want.medianHold,
      })
      const [c] = await queryRows<{ lots: string }>(ch, 'SELECT sum(lots) AS lots FROM solana_hold_counts WHERE wallet = {w:String}', { w: wallet })
      expect(Number(c!.lots), wallet).toBe(want.holds.length)
    }
    expect(sells).toBeGreaterThan(100)
  }, 240_000)
})
