import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { runVerify } from '../../pipelines/verify/run-verify.ts'
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
})
