import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { runVerify } from '../../pipelines/verify/run-verify.ts'
import { createReceiptServing } from '../../products/wallet/receipt-serving.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { runScenario } from '../setup/chain-scenario.ts'
import { expectReceiptsEqualChain, loadRoster, startReceiptRun, type ReceiptRun } from '../setup/receipt-run.ts'
import { until } from '../setup/until.ts'
import { watchedEngine } from '../setup/watched-engine.ts'

/**
 * Issue 24's other half: the same chain read from a later start block (1: block 0 is the genesis,
 * so this reads every swap), the first batch again holding swaps. Receipts equal the independent FIFO.
 */
let run: ReceiptRun

beforeAll(async () => {
  run = await startReceiptRun(1)
  const traders = (await queryRows<{ t: string }>(run.rt.ch, 'SELECT DISTINCT trader AS t FROM swaps ORDER BY t')).map((r) => r.t)
  await loadRoster(run, traders)
}, 240_000)

afterAll(async () => run?.close())

describe('FIFO from a first batch that starts at a later block', () => {
  it('the first batch starts at the start block and holds swaps', async () => {
    const [r] = await queryRows<{ lo: string; n: string }>(run.rt.ch, 'SELECT (SELECT min(number) FROM chain_blocks) AS lo, (SELECT count() FROM swaps WHERE block_number <= {b:UInt64}) AS n', { b: run.batches[0]! })
    expect(Number(r!.lo)).toBe(1)
    expect(Number(r!.n)).toBeGreaterThan(50)
  })

  it("every trader's receipt equals a FIFO over the chain's swap events, and no chain view drifts", async () => {
    expect(await expectReceiptsEqualChain(run, 1)).toBeGreaterThan(10)
    const r = await runVerify(run.rt.ch)
    expect(r.views.filter((v) => v.drifted > 0)).toEqual([])
  })

  it("while a batch's new receipt is built, the receipt before it is given at once, stating its block", { timeout: 180_000 }, async () => {
    // A receipt serving of its own over a client whose FIFO reads can be held.
    let held: Promise<void> | undefined
    const slow = new Proxy(run.rt.ch, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver)
        return async (args: Parameters<ClickHouseClient['query']>[0]) => {
          if (held && /fifo_/.test(args.query)) await held
          return target.query(args)
        }
      },
    })
    const receipts = createReceiptServing({ ch: slow, watermarks: run.api.watermarks, maxEntries: 1_000 })
    const [w] = (await queryRows<{ t: string }>(run.rt.ch, 'SELECT trader AS t FROM swaps GROUP BY trader ORDER BY count() DESC, trader LIMIT 1')).map((r) => r.t)
    const before = await receipts.receipt(w!)
    expect(before.found).toBe(true)
    // At the same watermark the answer is the one given before (made, and written to JSON, once).
    expect(await receipts.receipt(w!)).toBe(before)
    // The same traders trade again; the batches that fold their legs drop the receipt.
    await runScenario(run.node, { v2: run.v2, seed: 7 })
    const head = await run.caughtUp()
    expect(head).toBeGreaterThan(before.measured_through_block!)
    let release = () => {}
    held = new Promise<void>((r) => (release = r))
    try {
      // A read that syncs the serving without building: the batch drops the receipt, and the
      // refresh ahead starts building its new one (held), as it does right after a batch.
      const [token] = (await queryRows<{ t: string }>(run.rt.ch, 'SELECT token AS t FROM swaps LIMIT 1')).map((r) => r.t)
      await receipts.rosterTraders(token!)
      await new Promise((r) => setTimeout(r, 50))
      const waited = new Promise((r) => setTimeout(() => r('waited for the build'), 5_000))
      expect(await Promise.race([receipts.receipt(w!), waited])).toEqual(before)
    } finally {
      release()
      held = undefined
    }
    const deadline = Date.now() + 20_000
    let after = await receipts.receipt(w!)
    while (after.measured_through_block !== head && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50))
      after = await receipts.receipt(w!)
    }
    expect(after.measured_through_block).toBe(head)
    expect(after.sells).toBeGreaterThan(before.sells!)
    expect(await receipts.receipt(w!)).toBe(after)
  })

  it('the receipts a batch changes are built again together, before anyone asks: about one read per batch, not one per wallet', { timeout: 180_000 }, async () => {
    let positionReads = 0
    const counted = watchedEngine(run.rt.ch, 'query', (args) => {
      if (/FROM fifo_state WHERE/.test(args.query)) positionReads++
    })
    const receipts = createReceiptServing({ ch: counted, watermarks: run.api.watermarks, maxEntries: 1_000 })
    const wallets = (await queryRows<{ t: string }>(run.rt.ch, 'SELECT DISTINCT trader AS t FROM swaps ORDER BY t')).map((r) => r.t)
    for (const w of wallets) expect((await receipts.receipt(w)).found).toBe(true)
    expect(positionReads).toBe(wallets.length) // asked one by one: one read each
    const asked = positionReads
    const served = run.api.watermarks.get(4663)!

    await runScenario(run.node, { v2: run.v2, seed: 9 })
    const head = await run.caughtUp()
    // Any read of the serving syncs it to the new batches (this one builds no receipt).
    const [token] = (await queryRows<{ t: string }>(run.rt.ch, 'SELECT token AS t FROM swaps LIMIT 1')).map((r) => r.t)
    await receipts.rosterTraders(token!)
    const [changes] = await queryRows<{ n: string; batches: string }>(
      run.rt.ch,
      `SELECT count() AS n, uniqExact(seq) AS batches FROM serving_changes
       WHERE chain_id = 4663 AND kind = 'wallet' AND key IN {wallets:Array(String)} AND watermark > {served:UInt64}`,
      { wallets, served },
    )
    const batches = Number(changes!.batches)
    expect(Number(changes!.n)).toBeGreaterThan(2 * batches)
    await until('the background builds done', async () => {
      const before = positionReads
      await new Promise((r) => setTimeout(r, 500))
      return positionReads > asked && positionReads === before ? true : undefined
    })
    const rebuilt = positionReads - asked
    // Every asked receipt was built again through the new head before anyone asked for it.
    for (const w of wallets) expect((await receipts.receipt(w)).measured_through_block).toBe(head)
    expect(positionReads - asked).toBe(rebuilt)
    console.log(`receipt position reads: ${rebuilt} for ${changes!.n} changed receipts in ${batches} batches`)
    expect(rebuilt).toBeLessThanOrEqual(2 * batches)
  })
})
