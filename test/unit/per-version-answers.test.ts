import { describe, expect, it } from 'vitest'
import { cacheLookupCounts } from '../../core/metrics.ts'
import { createPerVersionAnswers } from '../../core/serving/per-version-answers.ts'

describe('answers kept for one version of the served state', () => {
  it('answers a key at the version it was kept for, counting hits and misses', () => {
    const kept = createPerVersionAnswers<string>(4, 'test_pva_counts')
    expect(kept.get(7, 'a')).toBeUndefined()
    kept.set(7, 'a', 'A')
    expect(kept.get(7, 'a')).toBe('A')
    expect(cacheLookupCounts('test_pva_counts')).toEqual({ hit: 1, miss: 1 })
  })

  it('drops every answer once another version is asked for, and keeps none computed at a version no longer held', () => {
    const kept = createPerVersionAnswers<string>(4, 'test_pva_versions')
    expect(kept.get(7, 'a')).toBeUndefined()
    kept.set(7, 'a', 'A')
    expect(kept.get(8, 'a')).toBeUndefined()
    // An answer read at 7 that finishes after a lookup at 8 is not kept.
    kept.set(7, 'b', 'B')
    expect(kept.get(8, 'b')).toBeUndefined()
    kept.set(8, 'b', 'B8')
    expect(kept.get(8, 'b')).toBe('B8')
    // Versions that are not numbers (a chain's and the social data's together) work the same.
    kept.set('4663:1/2', 'c', 'C')
    expect(kept.get('4663:1/2', 'c')).toBeUndefined()
    kept.set('4663:1/2', 'c', 'C')
    expect(kept.get('4663:1/2', 'c')).toBe('C')
    expect(kept.get('4663:1/3', 'c')).toBeUndefined()
  })

  it('holds at most maxEntries answers of a version, the least recently used evicted first', () => {
    const kept = createPerVersionAnswers<number>(3, 'test_pva_bound')
    kept.get(1, 'k0')
    for (let i = 0; i < 5; i++) kept.set(1, `k${i}`, i)
    expect([0, 1, 2, 3, 4].map((i) => kept.get(1, `k${i}`))).toEqual([undefined, undefined, 2, 3, 4])
  })
})
