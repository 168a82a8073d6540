import { describe, expect, it } from 'vitest'
import { medianHold } from '../../core/domain/hold-median.ts'
import { seeded } from '../setup/fifo-reference.ts'

/** The plain definition over every lot: the middle hold, or the mean of the middle two. */
function plainMedian(holds: number[]): number | null {
  if (holds.length === 0) return null
  const s = [...holds].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

describe('medianHold over counted holds', () => {
  it('equals the median over every lot, for odd and even totals, unsorted and repeated holds', () => {
    const rnd = seeded(7)
    let even = 0
    for (let round = 0; round < 500; round++) {
      const holds = Array.from({ length: Math.floor(rnd() * 30) }, () => Math.floor(rnd() * 12) * 600)
      const counts = new Map<number, number>()
      for (const h of holds) counts.set(h, (counts.get(h) ?? 0) + 1)
      // Counts arrive in any order, a hold may come in several rows, and empty rows happen.
      const rows = [...counts].flatMap(([hold, lots]) => (lots > 1 ? [{ hold, lots: lots - 1 }, { hold, lots: 1 }] : [{ hold, lots }])).reverse()
      rows.push({ hold: 99_999, lots: 0 })
      expect(medianHold(rows), JSON.stringify(holds)).toBe(plainMedian(holds))
      if (holds.length > 0 && holds.length % 2 === 0) even++
    }
    expect(even).toBeGreaterThan(100)
  })

  it('is null without a closed lot and the mean of the middle two for two lots', () => {
    expect(medianHold([])).toBeNull()
    expect(medianHold([{ hold: 100, lots: 1 }, { hold: 40, lots: 1 }])).toBe(70)
    expect(medianHold([{ hold: 5, lots: 3 }])).toBe(5)
  })
})
