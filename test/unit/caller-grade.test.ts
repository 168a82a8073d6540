import { describe, expect, it } from 'vitest'
import { forwardReturn, gradeOf, isEarlyCall, isMomentumCall, medianOfCounts, mutualClusters, scoreCaller } from '../../products/social/caller-grade.ts'

describe('scoreCaller()', () => {
  it('scoreCaller() grades a caller who is early on runners (hand-computed)', () => {
    // 4 graded calls of 5: 3 before their token's run, 1 after it; 3 with a positive return; median +12.5%.
    // score = 100 × (0.5×0.75 + 0.3×0.75 + 0.2×(0.5+0.125)) = 100 × (0.375 + 0.225 + 0.125) = 72.5 → 73 (B)
    expect(scoreCaller({ calls: 5, graded: 4, early: 3, momentum: 1, hits: 3, medianReturn1h: 0.125 })).toEqual({
      calls: 5, graded: 4, earlyRate: 0.75, momentumRate: 0.25, hitRate: 0.75, medianReturn1h: 0.125, score: 73, grade: 'B', measured: true,
    })
  })

  it('scoreCaller() grades a late caller of losers D, and is unmeasured under 4 graded calls', () => {
    // early 0, hits 1/4, median -0.4 → clamp(0.1); score = 100 × (0 + 0.075 + 0.02) = 9.5 → 10 (D)
    expect(scoreCaller({ calls: 4, graded: 4, early: 0, momentum: 2, hits: 1, medianReturn1h: -0.4 })).toMatchObject({ earlyRate: 0, momentumRate: 0.5, hitRate: 0.25, score: 10, grade: 'D', measured: true })
    // A median of +50% or more earns the full 20: 100 × (0.5 + 0.3 + 0.2) = 100 (A) but unmeasured with one call.
    expect(scoreCaller({ calls: 1, graded: 1, early: 1, momentum: 0, hits: 1, medianReturn1h: 1 })).toMatchObject({ graded: 1, measured: false, score: 100, grade: 'A' })
    expect(scoreCaller({ calls: 3, graded: 0, early: 0, momentum: 0, hits: 0, medianReturn1h: null })).toMatchObject({ score: null, grade: null, measured: false })
  })

  it.each([[75, 'A'], [74, 'B'], [55, 'B'], [54, 'C'], [35, 'C'], [34, 'D'], [0, 'D']] as const)('gradeOf(%i) is %s', (s, g) => {
    expect(gradeOf(s)).toBe(g)
  })
})

describe('mutualClusters()', () => {
  it('mutualClusters() joins accounts that follow each other, transitively, and ignores one-way follows', () => {
    const f = new Map<string, Set<string>>([
      ['a', new Set(['b', 'x'])],
      ['b', new Set(['a', 'c'])],
      ['c', new Set(['b'])],
      ['x', new Set([])],
      ['p', new Set(['q'])],
      ['q', new Set(['p'])],
    ])
    const c = mutualClusters(f)
    expect(c.get('a')).toBe('a')
    expect(c.get('b')).toBe('a')
    expect(c.get('c')).toBe('a')
    expect(c.get('p')).toBe('p')
    expect(c.get('q')).toBe('p')
    expect(c.has('x')).toBe(false)
  })
})

describe('forwardReturn()', () => {
  const at = 1_000_000
  it('forwardReturn() is exit / entry − 1 once the chain has run an hour past the call', () => {
    expect(forwardReturn(at, at + 3600, { price: 2, at: at + 10 }, { price: 3, at: at + 3600 })).toBe(0.5)
    expect(forwardReturn(at, at + 3599, { price: 2, at: at + 10 }, { price: 3, at: at + 3000 })).toBeNull()
  })

  it('forwardReturn() does not grade a call without a trade in its hour or with a zero entry price', () => {
    expect(forwardReturn(at, at + 9999, null, null)).toBeNull()
    expect(forwardReturn(at, at + 9999, { price: 2, at: at + 3601 }, { price: 3, at: at + 3601 })).toBeNull()
    expect(forwardReturn(at, at + 9999, { price: 0, at: at + 5 }, { price: 3, at: at + 50 })).toBeNull()
    expect(forwardReturn(at, at + 9999, { price: 2, at: at + 5 }, { price: 0, at: at + 50 })).toBe(-1)
  })
})

describe('isEarlyCall()', () => {
  it('isEarlyCall() is a call before the run; isMomentumCall() one at or after it; neither without a run', () => {
    expect([isEarlyCall(10, 11), isMomentumCall(10, 11)]).toEqual([true, false])
    expect([isEarlyCall(11, 11), isMomentumCall(11, 11)]).toEqual([false, true])
    expect([isEarlyCall(10, null), isMomentumCall(10, null)]).toEqual([false, false])
  })
})

describe('medianOfCounts()', () => {
  it('medianOfCounts() is the median of the multiset, interpolated as quantileExactInclusive(0.5)', () => {
    expect(medianOfCounts([], [])).toBeNull()
    expect(medianOfCounts([0.3], [1])).toBe(0.3)
    expect(medianOfCounts([0.7, 0.1, 0.2], [1, 1, 1])).toBe(0.2)
    // Even count: x[lo] + 0.5 × (x[lo+1] − x[lo]), as ClickHouse computes it (0.4 here, where (0.1 + 0.7) / 2 is 0.39999…).
    expect(medianOfCounts([0.1, 0.7], [1, 1])).toBe(0.1 + 0.5 * (0.7 - 0.1))
    // Counts repeat values; zero counts (cancelled grades) are not there.
    expect(medianOfCounts([1, 2, 9], [3, 0, 1])).toBe(1)
    expect(medianOfCounts([1, 2], [1, 3])).toBe(2)
  })
})
