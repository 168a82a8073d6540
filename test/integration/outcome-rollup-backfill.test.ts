import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { migrate, readMigrations } from '../../sql/migrate.ts'
import { buildOutcomeWorld, rollupAgainstRaw } from '../setup/outcome-world.ts'
import { freshChDB } from '../setup/chdb.ts'

/**
 * Migration 026 on a database that already recorded verdicts and marks (migrated through 025):
 * the marks get their verdict's lateness and pricing, and the aggregates are backfilled once to
 * what the recorded rows give.
 */
const CHAIN = 4663
const T0 = 1_750_000_000 - (1_750_000_000 % 86_400) + 7_200
let db: Awaited<ReturnType<typeof freshChDB>>
let ch: ClickHouseClient

beforeAll(async () => {
  db = await freshChDB()
  ch = db.ch
  await migrate(ch, readMigrations().filter((m) => m.version < 26))
  await buildOutcomeWorld(ch, CHAIN, T0, 2_000, false)
  expect((await migrate(ch)).applied).toContain('026_outcome_rollup')
}, 180_000)
afterAll(async () => db?.close())

describe('migration 026 backfills what was recorded before it', () => {
  it('marks carry their verdict\'s lateness and pricing', async () => {
    const rows = await queryRows<{ n: string; wrong: string; late: string; unpriced: string }>(
      ch,
      `SELECT count() AS n, countIf(m.verdict_late != toUInt8(v.lag_seconds > 600) OR m.verdict_priced != v.quoted) AS wrong,
              countIf(m.verdict_late = 1) AS late, countIf(m.verdict_priced = 0) AS unpriced
       FROM launch_marks AS m INNER JOIN launch_verdicts AS v ON v.token = m.token WHERE m.chain_id = ${CHAIN}`,
    )
    expect(Number(rows[0]!.n)).toBeGreaterThan(2_000)
    expect(Number(rows[0]!.wrong)).toBe(0)
    expect(Number(rows[0]!.late)).toBeGreaterThan(0)
    expect(Number(rows[0]!.unpriced)).toBeGreaterThan(0)
  })

  it('the rollup and the basket closes equal the recorded rows', async () => {
    const a = await rollupAgainstRaw(ch, CHAIN)
    expect(a.rollup.length).toBeGreaterThan(20)
    expect(a.rollup).toEqual(a.raw)
    const closes = await queryRows<{ token: string; r: number }>(ch, `SELECT token, return_24h AS r FROM basket_closes WHERE chain_id = ${CHAIN} ORDER BY token`)
    const expected = await queryRows<{ token: string; r: number }>(
      ch,
      `SELECT m.token AS token, assumeNotNull(m.forward_return) AS r FROM launch_marks AS m INNER JOIN launch_verdicts AS v ON v.token = m.token
       WHERE m.chain_id = ${CHAIN} AND m.horizon = '24h' AND v.signal = 'low_risk' AND v.lag_seconds <= 600 AND v.quoted = 1 AND isNotNull(m.forward_return)
       ORDER BY token`,
    )
    expect(closes.length).toBeGreaterThan(100)
    expect(closes).toEqual(expected)
  })
})
