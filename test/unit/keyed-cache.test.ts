import { describe, expect, it } from 'vitest'
import { createKeyedCache } from '../../core/serving/keyed-cache.ts'

describe('createKeyedCache()', () => {
  it('get() loads a key once for concurrent callers and keeps it', async () => {
    const cache = createKeyedCache<number>(10)
    let loads = 0
    const load = async () => {
      loads++
      await new Promise((r) => setTimeout(r, 5))
      return 42
    }
    expect(await Promise.all([cache.get('a', load), cache.get('a', load), cache.get('a', load)])).toEqual([42, 42, 42])
    expect(await cache.get('a', load)).toBe(42)
    expect(loads).toBe(1)
  })

  it('delete() drops one key; a load that was running when its key was dropped is not kept', async () => {
    const cache = createKeyedCache<string>(10)
    await cache.get('a', async () => 'a1')
    await cache.get('b', async () => 'b1')
    let release!: () => void
    const slow = cache.get('a', async () => 'unused')
    expect(await slow).toBe('a1')
    cache.delete('a')
    const running = cache.get('a', () => new Promise<string>((r) => (release = () => r('a2-stale'))))
    cache.delete('a')
    release()
    expect(await running).toBe('a2-stale')
    expect(await cache.get('a', async () => 'a3')).toBe('a3')
    expect(await cache.get('b', async () => 'never')).toBe('b1')
  })

  it('getMany() loads only the misses, in one call, and remembers absent keys', async () => {
    const cache = createKeyedCache<number | null>(10)
    await cache.get('x', async () => 1)
    const asked: string[][] = []
    const loadMany = async (missing: string[]) => {
      asked.push(missing)
      return new Map(missing.filter((k) => k !== 'gone').map((k) => [k, k.length]))
    }
    const got = await cache.getMany(['x', 'yy', 'gone', 'yy'], loadMany, null)
    expect([...got]).toEqual([['x', 1], ['yy', 2], ['gone', null]])
    expect(asked).toEqual([['yy', 'gone']])
    await cache.getMany(['x', 'yy', 'gone'], loadMany, null)
    expect(asked).toHaveLength(1)
  })

  it('getMany() gathers settled keys at once and waits only for loads still running', async () => {
    const cache = createKeyedCache<string>(10)
    await cache.getMany(['a', 'b'], async (missing) => new Map(missing.map((k) => [k, `${k}1`])), '')
    let release!: () => void
    const running = cache.get('c', () => new Promise<string>((r) => (release = () => r('c1'))))
    const many = cache.getMany(['c', 'a', 'b', 'd'], async (missing) => new Map(missing.map((k) => [k, `${k}-loaded`])), '')
    let done = false
    void many.then(() => (done = true))
    await new Promise((r) => setTimeout(r, 10))
    // 'c' is still loading: the answer waits for it, whatever the settled keys.
    expect(done).toBe(false)
    release()
    expect([...(await many)]).toEqual([['c', 'c1'], ['a', 'a1'], ['b', 'b1'], ['d', 'd-loaded']])
    await running
    // A failed load is not read as settled: the next call loads the key again.
    await expect(cache.getMany(['e'], async () => Promise.reject(new Error('down')), '')).rejects.toThrow('down')
    expect([...(await cache.getMany(['e', 'a'], async (missing) => new Map(missing.map((k) => [k, `${k}2`])), ''))]).toEqual([['a', 'a1'], ['e', 'e2']])
  })

  it('holds at most maxEntries, evicting the least recently used', async () => {
    const cache = createKeyedCache<number>(3)
    for (const k of ['a', 'b', 'c']) await cache.get(k, async () => 1)
    await cache.get('a', async () => 2) // a is used again: b is now the oldest
    await cache.get('d', async () => 1)
    expect(cache.size()).toBe(3)
    let reloaded = false
    await cache.get('b', async () => ((reloaded = true), 1))
    expect(reloaded).toBe(true)
    expect(await cache.get('a', async () => 99)).toBe(1)
  })

  it('a failed load is not kept', async () => {
    const cache = createKeyedCache<number>(3)
    await expect(cache.get('a', async () => Promise.reject(new Error('down')))).rejects.toThrow('down')
    expect(await cache.get('a', async () => 7)).toBe(7)
  })
})
