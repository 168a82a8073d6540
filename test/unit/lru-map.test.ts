import { describe, expect, it } from 'vitest'
import { LruMap } from '../../core/serving/lru-map.ts'

describe('LruMap', () => {
  it('holds at most maxEntries, evicting the oldest unused key first', () => {
    const m = new LruMap<number>(4)
    for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) m.set(k, i)
    for (let i = 0; i < 3; i++) m.set(`x${i}`, i) // no reads: plain insertion order
    expect(m.size).toBe(4)
    expect(['a', 'b', 'c', 'd'].map((k) => m.has(k))).toEqual([false, false, false, true])
  })

  it('never evicts a key read within the last maxEntries/2 operations before keys not read', () => {
    const m = new LruMap<number>(100)
    m.set('hot', 0)
    for (let i = 0; i < 1_000; i++) {
      m.set(`k${i}`, i)
      if (i % 40 === 0) expect(m.get('hot'), `after ${i} inserts`).toBe(0)
    }
    expect(m.size).toBe(100)
    expect(m.has('hot')).toBe(true)
    expect(m.has('k0')).toBe(false)
  })

  it('peek is not a use: a key only peeked at is evicted in its turn', () => {
    const m = new LruMap<number>(4)
    for (const k of ['a', 'b', 'c', 'd']) m.set(k, 1)
    for (let i = 0; i < 10; i++) m.set(`x${i}`, i), m.peek('a')
    expect(m.has('a')).toBe(false)
    expect(() => new LruMap(0)).toThrow(/at least 1/)
  })
})
