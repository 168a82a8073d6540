import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows, tupleParam, type ClickHouseClient } from '../../core/clickhouse.ts'
import { medianHoldSql } from '../../products/wallet/hold-median.ts'
import { seeded } from '../setup/fifo-reference.ts'
import { freshChDB } from '../setup/chdb.ts'

/** The plain definition over every lot: the middle hold, or the mean of the middle two. */
function plainMedian(holds: number[]): number | null {
  if (holds.length === 0) return null
  const s = [...holds].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

let db: Awaited<ReturnType<typeof freshChDB>>
let ch: ClickHouseClient
beforeAll(async () => {
  db = await freshChDB()
  ch = db.ch
})
afterAll(async () => db?.close())

/** The SQL median over (hold, lots) rows. */
async function sqlMedian(rows: Array<[hold: number, lots: number]>): Promise<number | null> {
  const [r] = await queryRows<{ m: number | null }>(
    ch,
    `SELECT ${medianHoldSql('r.1', 'r.2')} AS m FROM (SELECT arrayJoin({rows:Array(Tuple(UInt32, UInt64))}) AS r)`,
    { rows: tupleParam(rows) },
  )
  return r?.m === null || r?.m === undefined ? null : Number(r.m)
}

describe('medianHoldSql over counted holds', () => {
  it('equals the median over every lot, for odd and even totals, unsorted and repeated holds', async () => {
    const rnd = seeded(7)
    let even = 0
    for (let round = 0; round < 300; round++) {
      const holds = Array.from({ length: 1 + Math.floor(rnd() * 30) }, () => Math.floor(rnd() * 12) * 600)
      const counts = new Map<number, number>()
      for (const h of holds) counts.set(h, (counts.get(h) ?? 0) + 1)
      // Rows arrive in any order, a hold may come in several rows (unmerged parts), and empty rows happen.
      const rows = [...counts].flatMap(([hold, lots]): Array<[number, number]> => (lots > 1 ? [[hold, lots - 1], [hold, 1]] : [[hold, lots]])).reverse()
      rows.push([99_999, 0])
      expect(await sqlMedian(rows), JSON.stringify(holds)).toBe(plainMedian(holds))
      if (holds.length % 2 === 0) even++
    }
    expect(even).toBeGreaterThan(100)
  })

  it('is null without a closed lot and the mean of the middle two for two lots', async () => {
    expect(await sqlMedian([])).toBeNull()
    expect(await sqlMedian([[100, 1], [40, 1]])).toBe(70)
    expect(await sqlMedian([[5, 3]])).toBe(5)
  })
})
