import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { runVerify } from '../../pipelines/verify/run-verify.ts'
import { expectReceiptsEqualChain, loadRoster, startReceiptRun, type ReceiptRun } from '../setup/receipt-run.ts'

/**
 * Issue 24 on a real chain (hardhat, WETH9, Uniswap v2, routed trades): read from block 0 with
 * the first batch holding swaps, every receipt equals an independent FIFO over the chain's swap
 * events. Then each audited chain view gets a drift injected (one derived row deleted or altered):
 * verify names that key, a repair rebuilds it from raw rows, and the receipts equal the reference again.
 */
let run: ReceiptRun

beforeAll(async () => {
  run = await startReceiptRun(0)
  const head = await run.caughtUp()
  const traders = (await queryRows<{ t: string }>(run.rt.ch, 'SELECT DISTINCT trader AS t FROM swaps ORDER BY t')).map((r) => r.t)
  expect(traders.length).toBeGreaterThan(10)
  await loadRoster(run, traders)
  expect(head).toBeGreaterThan(run.batches[0]!)
}, 240_000)

afterAll(async () => run?.close())

const ch = () => run.rt.ch
const count = async (sql: string, p: Record<string, unknown> = {}) => Number((await queryRows<{ n: string }>(ch(), sql, p))[0]!.n)

/** Verify one view: the report of its chain-4663 check. */
async function verify(view: string, repair = false) {
  const r = await runVerify(ch(), { views: [view], repair, first: 10 })
  return r.views.find((v) => v.chain === 4663)!
}

/** Serve one more batch (a block mined), so API caches sync with what changed. */
async function nextBatch() {
  await run.node.mine(1)
  await run.caughtUp()
}

describe('FIFO from a first batch that starts at block 0 (issue 24)', () => {
  it('the first batch starts at block 0 and holds swaps; later batches trade on top', async () => {
    const first = run.batches[0]!
    expect(await count('SELECT min(number) AS n FROM chain_blocks')).toBe(0)
    expect(await count('SELECT count() AS n FROM swaps WHERE block_number <= {b:UInt64}', { b: first })).toBeGreaterThan(50)
    expect(await count('SELECT count() AS n FROM swaps WHERE block_number > {b:UInt64}', { b: first })).toBeGreaterThan(50)
    // Every leg is folded: the state's leg counts add up to wallet_legs.
    expect(await count('SELECT sum(legs) AS n FROM fifo_state FINAL')).toBe(await count('SELECT count() AS n FROM (SELECT DISTINCT wallet, token, block_number, log_index FROM wallet_legs)'))
  })

  it("every trader's realized, sells, winning sells, win rate, open cost and per-token figures equal a FIFO over the chain's swap events", async () => {
    expect(await expectReceiptsEqualChain(run, 0)).toBeGreaterThan(10)
  })

  it('svc verify finds no drift in any chain view', async () => {
    const r = await runVerify(ch())
    expect(r.views.filter((v) => v.drifted > 0)).toEqual([])
    for (const view of ['fifo_state', 'fifo_sells', 'fifo_hold_counts', 'holder_balances', 'token_state', 'deployer_state', 'chain_totals', 'chain_blocks']) {
      expect(r.views.find((v) => v.view === view && v.chain === 4663)!.checked, view).toBeGreaterThan(0)
    }
  })
})

describe('a drift injected into each audited chain view is named, and repaired from raw rows', () => {
  /** A wallet-token with a matched sell that closed a lot. */
  async function pairWithHolds() {
    const [p] = await queryRows<{ wallet: string; token: string; block_number: string; log_index: number }>(
      ch(), 'SELECT wallet, token, block_number, log_index FROM fifo_sells FINAL WHERE length(closed_holds) > 0 ORDER BY wallet, token, block_number LIMIT 1',
    )
    return p!
  }

  it('fifo_state: a pair whose state row is gone', async () => {
    const p = await pairWithHolds()
    await ch().command({ query: 'DELETE FROM fifo_state WHERE wallet = {w:String} AND token = {t:String}', query_params: { w: p.wallet, t: p.token } })
    const r = await verify('fifo_state')
    expect(r).toMatchObject({ drifted: 1, first: [{ key: `${p.wallet}/${p.token}`, kept: 'missing' }] })
    expect(await verify('fifo_state', true)).toMatchObject({ drifted: 0, repaired: 1 })
  })

  it('fifo_sells: one matched sell deleted', async () => {
    const p = await pairWithHolds()
    await ch().command({ query: 'DELETE FROM fifo_sells WHERE wallet = {w:String} AND token = {t:String} AND block_number = {b:UInt64} AND log_index = {l:UInt32}', query_params: { w: p.wallet, t: p.token, b: p.block_number, l: p.log_index } })
    const r = await verify('fifo_sells')
    expect(r.drifted).toBe(1)
    expect(r.first[0]!.key).toBe(`${p.wallet}/${p.token}`)
    expect(r.first[0]!.fresh).toContain(`(${p.block_number},${p.log_index},`)
    expect(r.first[0]!.kept).not.toContain(`(${p.block_number},${p.log_index},`)
    expect(await verify('fifo_sells', true)).toMatchObject({ drifted: 0, repaired: 1 })
  })

  it('fifo_hold_counts: a pair whose hold counts are gone', async () => {
    const p = await pairWithHolds()
    await ch().command({ query: 'DELETE FROM fifo_hold_counts WHERE wallet = {w:String} AND token = {t:String}', query_params: { w: p.wallet, t: p.token } })
    expect(await verify('fifo_hold_counts')).toMatchObject({ drifted: 1, first: [{ key: `${p.wallet}/${p.token}`, kept: 'missing' }] })
    expect(await verify('fifo_hold_counts', true)).toMatchObject({ drifted: 0, repaired: 1 })
  })

  it('receipts equal the reference again after the FIFO repairs', async () => {
    await nextBatch()
    await expectReceiptsEqualChain(run, 0)
  })

  it('holder_balances: one balance altered', async () => {
    const [h] = await queryRows<{ token: string; wallet: string; b: string }>(ch(), 'SELECT token, wallet, toString(sum(balance)) AS b FROM holder_balances GROUP BY token, wallet HAVING sum(balance) > 0 ORDER BY token, wallet LIMIT 1')
    await ch().insert({ table: 'holder_balances', values: [{ chain_id: 4663, token: h!.token, wallet: h!.wallet, balance: '7' }], format: 'JSONEachRow' })
    expect(await verify('holder_balances')).toMatchObject({ drifted: 1, first: [{ key: `${h!.token}/${h!.wallet}`, kept: (BigInt(h!.b) + 7n).toString(), fresh: h!.b }] })
    expect(await verify('holder_balances', true)).toMatchObject({ drifted: 0, repaired: 1 })
  })

  it('token_state: a newer row with one swap too many', async () => {
    const [t] = await queryRows<{ token: string }>(ch(), 'SELECT token FROM token_state FINAL WHERE swaps > 0 ORDER BY token LIMIT 1')
    await ch().command({ query: 'INSERT INTO token_state SELECT * REPLACE (swaps + 1 AS swaps, version + 1 AS version) FROM token_state WHERE token = {t:String} ORDER BY version DESC LIMIT 1', query_params: { t: t!.token } })
    const r = await verify('token_state')
    expect(r).toMatchObject({ drifted: 1, first: [{ key: t!.token }] })
    expect(r.first[0]!.kept).not.toBe(r.first[0]!.fresh)
    expect(await verify('token_state', true)).toMatchObject({ drifted: 0, repaired: 1 })
  })

  it('deployer_state: a newer row with one launch too many', async () => {
    const [d] = await queryRows<{ deployer: string; launched: number }>(ch(), 'SELECT deployer, launched FROM deployer_state FINAL WHERE launched > 0 ORDER BY deployer LIMIT 1')
    await ch().command({ query: 'INSERT INTO deployer_state SELECT * REPLACE (launched + 1 AS launched, version + 1 AS version) FROM deployer_state WHERE deployer = {d:String} ORDER BY version DESC LIMIT 1', query_params: { d: d!.deployer } })
    expect(await verify('deployer_state')).toMatchObject({ drifted: 1, first: [{ key: d!.deployer, kept: String(Number(d!.launched) + 1), fresh: String(d!.launched) }] })
    expect(await verify('deployer_state', true)).toMatchObject({ drifted: 0, repaired: 1 })
  })

  it('chain_totals: one swap counted twice', async () => {
    await ch().insert({ table: 'chain_totals', values: [{ chain_id: 4663, swaps: 1 }], format: 'JSONEachRow', clickhouse_settings: { insert_deduplicate: 0 } })
    expect(await verify('chain_totals')).toMatchObject({ drifted: 1, first: [{ key: '4663' }] })
    expect(await verify('chain_totals', true)).toMatchObject({ drifted: 0, repaired: 1 })
  })

  it('chain_blocks: a block missing below the watermark is named (it is re-ingested, not rebuilt)', async () => {
    const [b] = await queryRows<Record<string, unknown>>(ch(), 'SELECT * FROM chain_blocks WHERE number = 5')
    await ch().command({ query: 'DELETE FROM chain_blocks WHERE number = 5' })
    expect(await verify('chain_blocks')).toMatchObject({ drifted: 1, first: [{ key: '5', kept: 'missing', fresh: 'present' }] })
    expect((await verify('chain_blocks', true)).repair_note).toMatch(/re-ingest/)
    await ch().insert({ table: 'chain_blocks', values: [b!], format: 'JSONEachRow', clickhouse_settings: { insert_deduplicate: 0 } })
    expect(await verify('chain_blocks')).toMatchObject({ drifted: 0 })
    // The totals count what batches inserted (one row each, migration 032): neither the delete
    // nor the block put back by hand moved them, so they agree with the raw rows again.
    expect(await verify('chain_totals')).toMatchObject({ drifted: 0 })
  })

  it('after the repairs no view drifts, and every receipt equals the reference', async () => {
    const r = await runVerify(ch())
    expect(r.views.filter((v) => v.drifted > 0)).toEqual([])
    await nextBatch()
    await expectReceiptsEqualChain(run, 0)
  })
})
