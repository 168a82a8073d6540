import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { claimRow } from '../../products/wallet/leaderboard-claim.ts'
import { createReceiptServing } from '../../products/wallet/receipt-serving.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { until } from '../setup/until.ts'
import { watchedEngine } from '../setup/watched-engine.ts'

/**
 * A roster wallet's receipt is kept in two parts (products/wallet/receipt-serving.ts): what moves
 * with the wallet (its token states, holds and sells), read again only when a batch names the
 * wallet, and each token's last swap, read again when a batch names the token. This holds the kept
 * receipts against a fresh build after each of several batches that move the roster's prices, and
 * shows the wallets' states were read again only for the wallets the batches named.
 */
let env: Embedded
/** The roster: the most active traders (most of a batch's trades are theirs). */
const ROSTER = 30

beforeAll(async () => {
  env = await startEmbedded()
}, 180_000)
afterAll(async () => env?.close())

describe('wallet receipts kept through the batches that move their prices', () => {
  it('equal a fresh build after every batch; a wallet\'s states are read again only when a batch names the wallet', { timeout: 300_000 }, async () => {
    await env.ingestThrough(1200)
    const traders = await queryRows<{ trader: string }>(
      env.rt.ch,
      'SELECT trader FROM swaps WHERE chain_id = 4663 GROUP BY trader ORDER BY count() DESC, trader LIMIT {n:UInt32}',
      { n: ROSTER },
    )
    // Claimed an hour before the last swap so far: the 30-day window holds their sells, and its
    // ETH/USD candles are all in (a claim is made of the past; its range does not move).
    const [{ at }] = (await queryRows<{ at: string }>(env.rt.ch, "SELECT formatDateTime(max(block_time) - INTERVAL 1 HOUR, '%Y-%m-%dT%H:%i:%SZ') AS at FROM swaps WHERE chain_id = 4663")) as [{ at: string }]
    const claims = traders.map((r, i) => ({ source: 'receipt-kept', wallet: r.trader, rank: i + 1, claimed_pnl_usd_30d: 1000 - i, claimed_at: at }))
    // Stored as the claims processor stores them (this world runs no claims consumer).
    await env.rt.ch.insert({ table: 'leaderboard_claims', values: claims.map(claimRow), format: 'JSONEachRow' })
    const wallets = traders.map((r) => r.trader)

    // The wallets each read of their states asked for.
    const statesRead: string[][] = []
    const watched = watchedEngine(env.api.deps.ch, 'query', (args) => {
      if (/FROM fifo_state WHERE/.test(args.query)) statesRead.push((args.query_params as { wallets: string[] }).wallets)
    })
    const kept = createReceiptServing({ ch: watched, watermarks: env.api.watermarks, maxEntries: 10_000 })
    const askAll = async () => new Map(await Promise.all(wallets.map(async (w) => [w, JSON.stringify(await kept.receipt(w))] as const)))
    const first = await askAll()
    expect([...first.values()].every((r) => JSON.parse(r).found === true)).toBe(true)
    expect(statesRead.flat().sort()).toEqual([...wallets].sort())
    statesRead.length = 0

    let head = env.processor.watermark()
    let previous = first
    const named = new Set<string>()
    let movedByPriceOnly = 0
    for (let step = 0; step < 4; step++) {
      const from = head
      head += 20
      await env.ingestThrough(head)
      const stepNamed = new Set(
        (await queryRows<{ key: string }>(
          env.rt.ch,
          "SELECT DISTINCT key FROM serving_changes WHERE chain_id = 4663 AND kind = 'wallet' AND watermark > {from:UInt64} AND watermark <= {to:UInt64}",
          { from, to: head },
        )).map((r) => r.key),
      )
      for (const w of stepNamed) named.add(w)
      // A fresh build of every receipt, from a keeper that kept nothing.
      const fresh = createReceiptServing({ ch: env.api.deps.ch, watermarks: env.api.watermarks, maxEntries: 10_000 })
      const want = new Map(await Promise.all(wallets.map(async (w) => [w, JSON.stringify(await fresh.receipt(w))] as const)))
      // A changed receipt is given as it was (stating its block) while its new one is built.
      const got = await until('the kept receipts to catch up', async () => {
        const now = await askAll()
        return wallets.every((w) => now.get(w) === want.get(w)) ? now : undefined
      }, 15_000).catch(() => askAll())
      for (const w of wallets) expect(JSON.parse(got.get(w)!), `${w} after step ${step}`).toEqual(JSON.parse(want.get(w)!))
      for (const w of wallets) {
        const price = (r: string) => JSON.stringify((JSON.parse(r) as { per_token: unknown }).per_token)
        if (!stepNamed.has(w) && price(got.get(w)!) !== price(previous.get(w)!)) movedByPriceOnly++
      }
      previous = got
    }
    // The batches moved prices in receipts of wallets they did not name (else the split proves nothing)...
    expect(movedByPriceOnly).toBeGreaterThan(0)
    // ...and read the states of no wallet they did not name.
    const reread = new Set(statesRead.flat())
    expect([...reread].filter((w) => !named.has(w))).toEqual([])
    expect(reread.size).toBeLessThan(wallets.length)
  })
})
