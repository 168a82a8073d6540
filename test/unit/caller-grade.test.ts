import { describe, expect, it } from 'vitest'
import { gradeCaller, gradeOf, median, mutualClusters } from '../../core/domain/caller-grade.ts'

describe('gradeCaller()', () => {
  it('gradeCaller() grades a caller who is early on runners (hand-computed)', () => {
    // 4 graded calls: 3 before their token's run (early), 1 after it (momentum); returns +50%, +20%, -10%, +5%.
    const g = gradeCaller([
      { calledAt: 100, runAt: 500, return1h: 0.5 },
      { calledAt: 100, runAt: 900, return1h: 0.2 },
      { calledAt: 100, runAt: 200, return1h: -0.1 },
      { calledAt: 800, runAt: 700, return1h: 0.05 },
      { calledAt: 900, runAt: null, return1h: null }, // not graded yet
    ])
    // early 3/4 = 0.75, momentum 1/4, hits 3/4, median (0.05 + 0.2) / 2 = 0.125
    // score = 100 × (0.5×0.75 + 0.3×0.75 + 0.2×0.625) = 100 × (0.375 + 0.225 + 0.125) = 72.5 → 73 (B)
    expect(g).toEqual({ calls: 5, graded: 4, earlyRate: 0.75, momentumRate: 0.25, hitRate: 0.75, medianReturn1h: 0.125, score: 73, grade: 'B', measured: true })
  })

  it('gradeCaller() grades a late caller of losers D, and is unmeasured under 4 graded calls', () => {
    const late = gradeCaller([
      { calledAt: 900, runAt: 100, return1h: -0.3 },
      { calledAt: 900, runAt: 100, return1h: -0.5 },
      { calledAt: 900, runAt: null, return1h: -0.9 },
      { calledAt: 900, runAt: null, return1h: 0.01 },
    ])
    // early 0, hits 1/4, median (-0.5 + -0.3)/2 = -0.4 → clamp(0.1) ; score = 100 × (0 + 0.075 + 0.02) = 9.5 → 10 (D)
    expect(late).toMatchObject({ earlyRate: 0, momentumRate: 0.5, hitRate: 0.25, score: 10, grade: 'D', measured: true })
    expect(late.medianReturn1h).toBeCloseTo(-0.4)
    expect(gradeCaller([{ calledAt: 1, runAt: 2, return1h: 1 }])).toMatchObject({ graded: 1, measured: false, grade: 'A' })
    expect(gradeCaller([])).toMatchObject({ score: null, grade: null, measured: false })
  })

  it.each([[75, 'A'], [74, 'B'], [55, 'B'], [54, 'C'], [35, 'C'], [34, 'D'], [0, 'D']] as const)('gradeOf(%i) is %s', (s, g) => {
    expect(gradeOf(s)).toBe(g)
  })

  it('median() of even and odd lists', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([])).toBeNull()
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
