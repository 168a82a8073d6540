import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiServer } from '../../bin/serve-api.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { recoverRollbacks, rollbackChain, setAsideOutcomes } from '../../pipelines/process/chain-rollback.ts'
import { buildOutcomeWorld, rollupAgainstRaw } from '../setup/outcome-world.ts'
import { readRecordedOutcomes, referenceBasketData, referenceProofData } from '../setup/outcomes-reference.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'

/**
 * /basket and /proof.json served from the aggregates of migration 026 (outcome_rollup,
 * basket_closes) equal the full recompute from every recorded verdict and mark (the reference,
 * test/setup/outcomes-reference.ts), on a world of 3,000 recorded verdicts over four launch days:
 * four signals, late verdicts (lag 601 s) and on-time ones at exactly 600 s, unpriced verdicts,
 * marks without a return, returns of exactly 0, launches sharing a launch second, marks sharing a
 * mark time and block. Then a replayed insert changes no figure, and a rollback leaves the
 * aggregates equal to a recomputation from the remaining rows.
 */
const CHAIN = 4663
const T0 = 1_760_000_000 - (1_760_000_000 % 86_400) + 3_600
const N = 3_000
let env: Embedded

beforeAll(async () => {
  env = await startEmbedded({}, { social: false })
  await buildOutcomeWorld(env.rt.ch, CHAIN, T0, N)
}, 180_000)
afterAll(async () => env?.close())

/** /basket and /proof.json `data` from a fresh API server (nothing cached from an earlier state). */
async function served(): Promise<{ basket: Record<string, unknown>; proof: Record<string, unknown> }> {
  const api = await createApiServer(env.rt, { pollMs: 0 })
  try {
    const get = async (url: string) => {
      const res = await api.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })
      expect(res.statusCode, res.body).toBe(200)
      return res.json().data as Record<string, unknown>
    }
    return { basket: await get('/basket'), proof: await get('/proof.json') }
  } finally {
    await api.close()
  }
}

async function reference() {
  const { verdicts, marks } = await readRecordedOutcomes(env.rt.ch, CHAIN)
  return { basket: referenceBasketData(verdicts, marks), proof: referenceProofData(verdicts, marks), verdicts: verdicts.length, marks: marks.length }
}

describe('/basket and /proof.json from the outcome aggregates', () => {
  it('equal the full recompute from every recorded verdict and mark', async () => {
    const ref = await reference()
    expect(ref.verdicts).toBe(N)
    const s = await served()
    expect(s.basket).toEqual(ref.basket)
    expect(s.proof).toEqual(ref.proof)
    // The world exercises what the figures split on.
    const b = ref.basket
    expect(b.truncated).toBe(true)
    expect(b.excluded.late).toBeGreaterThan(0)
    expect(b.excluded.unpriced).toBeGreaterThan(0)
    expect(b.equity_curve.length).toBeGreaterThan(100)
    const counts = [...Object.values(b.horizons).map((h) => h.marked), ...ref.proof.signals.map((p) => p.marked_24h_with_return)]
    expect(counts.some((n) => n % 2 === 0) && counts.some((n) => n % 2 === 1), `marked counts ${counts.join(', ')}`).toBe(true)
    expect(new Set(ref.proof.signals.map((p) => p.tokens)).size).toBeGreaterThan(1)
    // The aggregates themselves equal the raw rows, key by key.
    const a = await rollupAgainstRaw(env.rt.ch, CHAIN)
    expect(a.rollup).toEqual(a.raw)
  })

  it('a replayed insert (same deduplication token) changes no figure', async () => {
    const ch = env.rt.ch
    const at = T0 + 5 * 86_400
    const verdicts = [0, 1, 2].map((i) => ({
      chain_id: CHAIN, launched_at: at + i, token: `0xreplay${i}`, symbol: `R${i}`, deployer: '', launch_block: 90_000 + i, due_at: at + i + 900, taken_block: 90_000 + i,
      taken_at: at + i + 900, lag_seconds: 0, signal: 'low_risk', confidence: 0.9, reasons: '[]', quoted: 1, entry_weth: '1000', entry_token: '10',
      entry_price_weth: '0.0001', entry_quote_block: 89_999, decimals: 18,
    }))
    const marks = verdicts.map((v, i) => ({
      chain_id: CHAIN, horizon: '24h', launched_at: v.launched_at, token: v.token, signal: 'low_risk', due_at: v.due_at + 86_400, marked_block: 95_000,
      marked_at: v.due_at + 86_400, quoted: 1, mark_weth: '1', mark_token: '1', price_weth: '1', forward_return: [0.5, -0.25, 1.5][i]!, is_real: 1, dead: '',
      verdict_late: 0, verdict_priced: 1,
    }))
    const insert = async () => {
      await ch.insert({ table: 'launch_verdicts', values: verdicts, format: 'JSONEachRow', clickhouse_settings: { insert_deduplication_token: 'replay-verdicts' } })
      await ch.insert({ table: 'launch_marks', values: marks, format: 'JSONEachRow', clickhouse_settings: { insert_deduplication_token: 'replay-marks' } })
    }
    await insert()
    const once = await served()
    const ref = await reference()
    expect(once.basket).toEqual(ref.basket)
    expect(once.proof).toEqual(ref.proof)
    expect((once.basket.members as Array<{ token: string }>)[0]!.token).toBe('0xreplay2')
    await insert()
    expect(await served()).toEqual(once)
    const a = await rollupAgainstRaw(env.rt.ch, CHAIN)
    expect(a.rollup).toEqual(a.raw)
  })

  it('a rollback rebuilds the touched launch days: the aggregates equal a recomputation from the remaining rows', async () => {
    const ch = env.rt.ch
    const before = await reference()
    // Verdicts taken at or after block 2,600 and marks taken at or after it go (the last day and
    // the late marks of earlier days).
    const fork = 2_600
    await rollbackChain(ch, CHAIN, fork, { old: '0x' + 'a'.repeat(64), new: '0x' + 'b'.repeat(64) })
    const [left] = await queryRows<{ v: string; m: string }>(ch, `SELECT (SELECT count() FROM launch_verdicts WHERE chain_id = ${CHAIN} AND taken_block >= ${fork}) AS v,
      (SELECT count() FROM launch_marks WHERE chain_id = ${CHAIN} AND marked_block >= ${fork}) AS m`)
    expect([Number(left!.v), Number(left!.m)]).toEqual([0, 0])
    const after = await reference()
    expect(after.verdicts).toBeLessThan(before.verdicts)
    expect(after.marks).toBeLessThan(before.marks)
    const s = await served()
    expect(s.basket).toEqual(after.basket)
    expect(s.proof).toEqual(after.proof)
    expect(s.basket).not.toEqual(before.basket)
    const a = await rollupAgainstRaw(env.rt.ch, CHAIN)
    expect(a.rollup).toEqual(a.raw)
    // Nothing is left set aside: a restart has nothing to finish.
    const scratch = await queryRows<{ name: string }>(ch, "SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE 'rollback_%'")
    expect(scratch).toEqual([])
  })

  it('a rollback that died midway (verdicts replayed, marks not yet) is finished on restart with nothing counted twice', async () => {
    const ch = env.rt.ch
    const fork = 2_200
    await setAsideOutcomes(ch, CHAIN, fork)
    for (const [t, col] of [['launch_verdicts', 'taken_block'], ['launch_marks', 'marked_block']]) {
      await ch.command({ query: `DELETE FROM ${t} WHERE chain_id = ${CHAIN} AND ${col} >= ${fork}` })
    }
    // The dead process had replayed the set-aside verdicts once: the views counted them again.
    await ch.command({ query: `INSERT INTO launch_verdicts SELECT * FROM rollback_${CHAIN}_launch_verdicts`, clickhouse_settings: { insert_deduplicate: 0 } })
    const crashed = await rollupAgainstRaw(ch, CHAIN)
    expect(crashed.rollup).not.toEqual(crashed.raw)
    await recoverRollbacks(ch, CHAIN)
    const a = await rollupAgainstRaw(ch, CHAIN)
    expect(a.rollup).toEqual(a.raw)
    const ref = await reference()
    const s = await served()
    expect(s.basket).toEqual(ref.basket)
    expect(s.proof).toEqual(ref.proof)
    const [left] = await queryRows<{ n: string }>(ch, `SELECT count() AS n FROM launch_marks WHERE chain_id = ${CHAIN} AND marked_block >= ${fork}`)
    expect(Number(left!.n)).toBe(0)
  })
})
