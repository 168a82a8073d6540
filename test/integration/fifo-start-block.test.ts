import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { runVerify } from '../../pipelines/verify/run-verify.ts'
import { createReceiptServing } from '../../products/wallet/receipt-serving.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { runScenario } from '../setup/chain-scenario.ts'
import { expectReceiptsEqualChain, loadRoster, startReceiptRun, type ReceiptRun } from '../setup/receipt-run.ts'

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
    // The same traders trade again; the batches that fold their legs drop the receipt.
    await runScenario(run.node, { v2: run.v2, seed: 7 })
    const head = await run.caughtUp()
    expect(head).toBeGreaterThan(before.measured_through_block!)
    let release = () => {}
    held = new Promise<void>((r) => (release = r))
    try {
      expect(await receipts.receipt(w!)).toEqual(before)
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
  })
})
