import { describe, expect, it } from 'vitest'
import { createRefreshAhead } from '../../core/serving/refresh-ahead.ts'

const tick = () => new Promise((r) => setImmediate(r))

describe('refresh ahead of kept answers', () => {
  it('loads again a dropped key that was asked recently, and nothing else', async () => {
    const loaded: string[] = []
    const ahead = createRefreshAhead({ recentMs: 60_000, concurrency: 1, maxKeys: 10, load: async ([k]) => void loaded.push(k!) })
    ahead.asked('a')
    ahead.dropped('a')
    ahead.dropped('b') // never asked
    expect(loaded).toEqual([]) // not during the sync that dropped it
    await tick()
    await tick()
    expect(loaded).toEqual(['a'])
  })

  it('forgets keys not asked within recentMs, and the oldest past maxKeys', async () => {
    const loaded: string[] = []
    const stale = createRefreshAhead({ recentMs: -1, concurrency: 1, maxKeys: 10, load: async ([k]) => void loaded.push(k!) })
    stale.asked('a')
    stale.dropped('a')
    const small = createRefreshAhead({ recentMs: 60_000, concurrency: 1, maxKeys: 2, load: async ([k]) => void loaded.push(k!) })
    for (const k of ['x', 'y', 'z']) small.asked(k)
    for (const k of ['x', 'y', 'z']) small.dropped(k)
    await tick()
    await tick()
    await tick()
    expect(loaded.sort()).toEqual(['y', 'z'])
  })

  it('runs at most `concurrency` loads at once, a key once however often it is dropped, and survives a failed load', async () => {
    let running = 0
    let most = 0
    const loaded: string[] = []
    const ahead = createRefreshAhead({
      recentMs: 60_000,
      concurrency: 2,
      maxKeys: 100,
      load: async ([k]) => {
        running++
        most = Math.max(most, running)
        await new Promise((r) => setTimeout(r, 5))
        running--
        if (k === 'k3') throw new Error('engine down')
        loaded.push(k!)
      },
    })
    const keys = Array.from({ length: 8 }, (_, i) => `k${i}`)
    for (const k of keys) ahead.asked(k)
    for (const k of [...keys, ...keys]) ahead.dropped(k)
    expect(ahead.pending()).toBe(8)
    while (ahead.pending() > 0) await new Promise((r) => setTimeout(r, 5))
    expect(most).toBe(2)
    expect(loaded.sort()).toEqual(keys.filter((k) => k !== 'k3'))
  })

  it('with batchKeys, the keys dropped together are loaded in one call of at most batchKeys', async () => {
    const calls: string[][] = []
    const ahead = createRefreshAhead({
      recentMs: 60_000,
      concurrency: 1,
      maxKeys: 100,
      batchKeys: 3,
      load: async (keys) => void calls.push(keys),
    })
    const keys = Array.from({ length: 7 }, (_, i) => `k${i}`)
    for (const k of keys) ahead.asked(k)
    for (const k of [...keys, 'never-asked']) ahead.dropped(k)
    while (ahead.pending() > 0) await new Promise((r) => setTimeout(r, 1))
    expect(calls).toEqual([['k0', 'k1', 'k2'], ['k3', 'k4', 'k5'], ['k6']])
  })
})
