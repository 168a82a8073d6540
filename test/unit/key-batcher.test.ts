import { describe, expect, it } from 'vitest'
import { createKeyBatcher } from '../../core/serving/key-batcher.ts'
import { deferred, type Deferred } from '../../core/deferred.ts'

/** A load whose calls are recorded and each settled by the test. */
function heldLoad() {
  const calls: Array<{ keys: string[]; done: Deferred<Map<string, number>> }> = []
  const load = (keys: string[]) => {
    const done = deferred<Map<string, number>>()
    calls.push({ keys, done })
    return done.promise
  }
  return { calls, load }
}

const tick = () => new Promise((r) => setTimeout(r, 0))

describe('createKeyBatcher', () => {
  it('reads a lone ask at once, alone', async () => {
    const { calls, load } = heldLoad()
    const ask = createKeyBatcher(load, { maxKeys: 10, absent: -1 })
    const a = ask('a')
    expect(calls.map((c) => c.keys)).toEqual([['a']])
    calls[0]!.done.resolve(new Map([['a', 1]]))
    expect(await a).toBe(1)
  })

  it('reads the asks made while a load runs together, each key once, the missing ones absent', async () => {
    const { calls, load } = heldLoad()
    const ask = createKeyBatcher(load, { maxKeys: 10, absent: -1 })
    const first = ask('a')
    const later = ['b', 'c', 'b', 'd'].map((k) => ask(k))
    expect(calls).toHaveLength(1)
    calls[0]!.done.resolve(new Map([['a', 1]]))
    await tick()
    expect(calls.map((c) => c.keys)).toEqual([['a'], ['b', 'c', 'd']])
    calls[1]!.done.resolve(new Map([['b', 2], ['d', 4]]))
    expect(await first).toBe(1)
    expect(await Promise.all(later)).toEqual([2, -1, 2, 4])
  })

  it('takes at most maxKeys a load: a larger round goes in several', async () => {
    const { calls, load } = heldLoad()
    const ask = createKeyBatcher(load, { maxKeys: 2, absent: 0 })
    const all = ['a', 'b', 'c', 'd', 'e'].map((k) => ask(k))
    for (let i = 0; i < 3; i++) {
      calls[i]!.done.resolve(new Map(calls[i]!.keys.map((k) => [k, k.charCodeAt(0)])))
      await tick()
    }
    expect(calls.map((c) => c.keys)).toEqual([['a'], ['b', 'c'], ['d', 'e']])
    expect(await Promise.all(all)).toEqual([97, 98, 99, 100, 101])
  })

  it('fails the asks a failed load carried, and the next round goes on', async () => {
    const { calls, load } = heldLoad()
    const ask = createKeyBatcher(load, { maxKeys: 10, absent: 0 })
    const a = ask('a')
    const b = ask('b')
    calls[0]!.done.reject(new Error('engine down'))
    await expect(a).rejects.toThrow('engine down')
    await tick()
    calls[1]!.done.resolve(new Map([['b', 2]]))
    expect(await b).toBe(2)
    // Nothing is running now: the next ask is read at once again.
    const c = ask('c')
    expect(calls.map((x) => x.keys)).toEqual([['a'], ['b'], ['c']])
    calls[2]!.done.resolve(new Map())
    expect(await c).toBe(0)
  })

  it('fails the asks of a load that throws before returning a promise, and stays usable', async () => {
    let calls = 0
    const ask = createKeyBatcher<number>(
      (keys) => {
        calls++
        if (keys.includes('bad')) throw new Error('refused at once')
        return Promise.resolve(new Map(keys.map((k) => [k, 1])))
      },
      { maxKeys: 10, absent: 0 },
    )
    await expect(ask('bad')).rejects.toThrow('refused at once')
    expect(await ask('good')).toBe(1)
    expect(calls).toBe(2)
  })

  it('reads only keys of one group together, the group waiting longest first', async () => {
    const calls: Array<{ keys: string[]; block: number; done: Deferred<Map<string, string>> }> = []
    const ask = createKeyBatcher<string, number>(
      (keys, block) => {
        const done = deferred<Map<string, string>>()
        calls.push({ keys, block, done })
        return done.promise
      },
      { maxKeys: 2, absent: '' },
    )
    const asks = [ask('a', 1), ask('b', 2), ask('c', 3), ask('d', 2), ask('b', 3), ask('e', 2), ask('b', 2)]
    for (let i = 0; i < 4; i++) {
      const { keys, block, done } = calls[i]!
      done.resolve(new Map(keys.map((k) => [k, `${k}@${block}`])))
      await tick()
    }
    // The same key in two groups is two reads; a group larger than maxKeys keeps its place.
    expect(calls.map((c) => [c.block, c.keys])).toEqual([
      [1, ['a']],
      [2, ['b', 'd']],
      [2, ['e']],
      [3, ['c', 'b']],
    ])
    expect(await Promise.all(asks)).toEqual(['a@1', 'b@2', 'c@3', 'd@2', 'b@3', 'e@2', 'b@2'])
  })
})
