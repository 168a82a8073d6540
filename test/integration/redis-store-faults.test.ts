import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DependencyUnavailableError } from '../../core/dependency.ts'
import { createRedisStore } from '../../core/store/redis-store.ts'
import type { Store } from '../../core/store/types.ts'
import { startOwnRedis, type OwnRedis } from '../setup/own-redis.ts'

/** The Redis store against a real redis-server of this test's own: stopped, hung, back. */

const TIMEOUT_MS = 300
let redis: OwnRedis
let store: Store
beforeAll(async () => {
  redis = await startOwnRedis()
  store = createRedisStore(redis.url, { commandTimeoutMs: TIMEOUT_MS })
})
afterAll(async () => {
  await store?.close()
  await redis?.dispose()
})

/** How long a store call took to settle, and how. */
async function settle(op: () => Promise<unknown>): Promise<{ ms: number; error?: unknown }> {
  const t0 = performance.now()
  try {
    await op()
    return { ms: performance.now() - t0 }
  } catch (error) {
    return { ms: performance.now() - t0, error }
  }
}

async function until(op: () => Promise<unknown>, withinMs: number): Promise<number> {
  const t0 = Date.now()
  for (;;) {
    if (!(await settle(op)).error) return Date.now() - t0
    if (Date.now() - t0 > withinMs) throw new Error(`the store did not recover within ${withinMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('the Redis store when Redis fails', () => {
  it('a stopped server: commands fail at once as DependencyUnavailableError; they work again when it is back', { timeout: 30_000 }, async () => {
    await store.set('k', 'v')
    await redis.stop()
    const r = await settle(() => store.get('k'))
    expect(r.error).toBeInstanceOf(DependencyUnavailableError)
    expect((r.error as DependencyUnavailableError).dependency).toBe('store')
    expect(r.ms).toBeLessThan(100)
    await redis.start()
    console.log(`[store] usable again ${await until(() => store.ping(), 5_000)} ms after redis-server restarted`)
    expect(await store.get('k')).toBeNull()
  })

  it('a hung server: the first command fails after the timeout, later ones at once, until it answers again', { timeout: 30_000 }, async () => {
    redis.freeze()
    try {
      const first = await settle(() => store.incr('n', 1, 60_000))
      expect(first.error).toBeInstanceOf(DependencyUnavailableError)
      expect(first.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5)
      expect(first.ms).toBeLessThan(TIMEOUT_MS + 200)
      const next = await settle(() => store.get('n'))
      expect(next.error).toBeInstanceOf(DependencyUnavailableError)
      expect(next.ms).toBeLessThan(20)
      console.log(`[store] hung: first command ${Math.round(first.ms)} ms, next ${next.ms.toFixed(1)} ms`)
    } finally {
      redis.thaw()
    }
    console.log(`[store] usable again ${await until(() => store.get('n'), 5_000)} ms after the server thawed`)
  })

  it('an error Redis answers (wrong type) is not unavailability', async () => {
    await store.sadd('a-set', 'x')
    const r = await settle(() => store.get('a-set'))
    expect(r.error).toBeDefined()
    expect(r.error).not.toBeInstanceOf(DependencyUnavailableError)
  })

  it('a store made while Redis is down fails at once and works once Redis starts', { timeout: 30_000 }, async () => {
    await redis.stop()
    const early = createRedisStore(redis.url, { commandTimeoutMs: TIMEOUT_MS })
    try {
      const r = await settle(() => early.get('x'))
      expect(r.error).toBeInstanceOf(DependencyUnavailableError)
      expect(r.ms).toBeLessThan(100)
      await redis.start()
      await until(() => early.ping(), 5_000)
    } finally {
      await early.close()
    }
  })
})
