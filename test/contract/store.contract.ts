import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../core/store/types.ts'

/**
 * The semantics every Store implementation must keep (quotas, spent-once nonces, caches,
 * watchlists). Keys are unique per test, so suites may share one Redis.
 */
export function storeContract(name: string, makeStore: () => Store | Promise<Store>): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store

    beforeAll(async () => {
      store = await makeStore()
    })
    afterAll(async () => {
      await store?.close()
    })

    const unique = (what: string) => `contract:${name}:${what}:${randomBytes(4).toString('hex')}`

    it('ping() answers', async () => {
      await store.ping()
    })

    it('get() returns what set() stored, and null for an absent key', async () => {
      const key = unique('get')
      expect(await store.get(key)).toBeNull()
      await store.set(key, 'one')
      expect(await store.get(key)).toBe('one')
      await store.set(key, 'twö ✓')
      expect(await store.get(key)).toBe('twö ✓')
    })

    it('del() removes a key, and deleting an absent key is fine', async () => {
      const key = unique('del')
      await store.set(key, 'x')
      await store.del(key)
      expect(await store.get(key)).toBeNull()
      await store.del(key)
    })

    it('set() with ttlMs expires the key', async () => {
      const key = unique('ttl')
      await store.set(key, 'soon gone', 200)
      const left = await store.ttl(key)
      expect(left).not.toBeNull()
      expect(left!).toBeGreaterThan(0)
      expect(left!).toBeLessThanOrEqual(200)
      expect(await store.get(key)).toBe('soon gone')
      await sleep(300)
      expect(await store.get(key)).toBeNull()
      expect(await store.ttl(key)).toBeNull()
    })

    it('ttl() is null for an absent key and for a key without a ttl, and set() drops an old ttl', async () => {
      const key = unique('nottl')
      expect(await store.ttl(key)).toBeNull()
      await store.set(key, 'a', 60_000)
      expect(await store.ttl(key)).toBeGreaterThan(59_000)
      await store.set(key, 'b')
      expect(await store.ttl(key)).toBeNull()
    })

    it('setIfAbsent() lets exactly one of 50 concurrent calls win', async () => {
      const key = unique('race')
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => store.setIfAbsent(key, `caller-${i}`, 60_000)),
      )
      const winners = results.flatMap((won, i) => (won ? [i] : []))
      expect(winners).toHaveLength(1)
      expect(await store.get(key)).toBe(`caller-${winners[0]}`)
      expect(await store.setIfAbsent(key, 'late')).toBe(false)
    })

    it('setIfAbsent() succeeds again once the key has expired', async () => {
      const key = unique('nonce')
      expect(await store.setIfAbsent(key, 'first', 150)).toBe(true)
      expect(await store.setIfAbsent(key, 'second', 150)).toBe(false)
      await sleep(250)
      expect(await store.setIfAbsent(key, 'third')).toBe(true)
      expect(await store.get(key)).toBe('third')
      expect(await store.ttl(key)).toBeNull()
    })

    it('incr() sets the ttl when it creates the counter, so the window expires as a whole', async () => {
      const key = unique('window')
      expect(await store.incr(key, 1, 400)).toBe(1)
      await sleep(150)
      // A later increment must not push the window's end out.
      expect(await store.incr(key, 2, 400)).toBe(3)
      const left = await store.ttl(key)
      expect(left!).toBeLessThanOrEqual(260)
      expect(left!).toBeGreaterThan(0)
      await sleep(350)
      expect(await store.get(key)).toBeNull()
      // A new window starts from scratch with its own ttl.
      expect(await store.incr(key, 5, 400)).toBe(5)
      expect(await store.ttl(key)).toBeGreaterThan(300)
    })

    it('incr() is atomic under 100 concurrent calls', async () => {
      const key = unique('count')
      const values = await Promise.all(Array.from({ length: 100 }, () => store.incr(key, 1, 60_000)))
      expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
      expect(await store.get(key)).toBe('100')
      expect(await store.incr(key, -10, 60_000)).toBe(90)
    })

    it('incr() rejects a key that holds a non-integer', async () => {
      const key = unique('notint')
      await store.set(key, 'abc')
      await expect(store.incr(key, 1, 1_000)).rejects.toThrow()
    })

    it('sadd(), srem(), smembers() and scard() keep a set', async () => {
      const key = unique('set')
      expect(await store.smembers(key)).toEqual([])
      expect(await store.scard(key)).toBe(0)
      expect(await store.sadd(key, '0xabc')).toBe(true)
      expect(await store.sadd(key, '0xdef')).toBe(true)
      expect(await store.sadd(key, '0xabc')).toBe(false)
      expect((await store.smembers(key)).sort()).toEqual(['0xabc', '0xdef'])
      expect(await store.scard(key)).toBe(2)
      expect(await store.srem(key, '0xabc')).toBe(true)
      expect(await store.srem(key, '0xabc')).toBe(false)
      expect(await store.smembers(key)).toEqual(['0xdef'])
      expect(await store.srem(key, '0xdef')).toBe(true)
      expect(await store.scard(key)).toBe(0)
    })

    it('sadd() of the same member from 20 concurrent calls reports one addition', async () => {
      const key = unique('setrace')
      const results = await Promise.all(Array.from({ length: 20 }, () => store.sadd(key, 'm')))
      expect(results.filter(Boolean)).toHaveLength(1)
      expect(await store.scard(key)).toBe(1)
    })
  })
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
