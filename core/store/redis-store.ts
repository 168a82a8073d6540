import { Redis } from 'ioredis'
import type { Store } from './types.ts'

// INCRBY, and a time to live only when this call created the key: a quota window expires as
// a whole, however often it is counted. One script, so no other client sees it half done.
const INCR_WITH_TTL = `
local created = redis.call('EXISTS', KEYS[1]) == 0
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if created then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return value
`

type RedisWithScripts = Redis & {
  incrWithTtl(key: string, by: number, ttlMs: number): Promise<number>
}

/** The store over Redis, shared by every API process that points at the same `url`. */
export function createRedisStore(url: string): Store {
  const redis = new Redis(url, {
    connectTimeout: 5_000,
    maxRetriesPerRequest: 3,
    lazyConnect: false,
  }) as RedisWithScripts
  redis.defineCommand('incrWithTtl', { numberOfKeys: 1, lua: INCR_WITH_TTL })
  // Reconnects are ioredis's job; without a listener an unreachable server would also print
  // an "Unhandled error event" per retry. Callers see failures as rejected commands.
  redis.on('error', () => {})

  return {
    kind: 'redis',
    async get(key) {
      return redis.get(key)
    },
    async set(key, value, ttlMs) {
      if (ttlMs === undefined) await redis.set(key, value)
      else await redis.set(key, value, 'PX', ms(ttlMs))
    },
    async setIfAbsent(key, value, ttlMs) {
      const reply =
        ttlMs === undefined ? await redis.set(key, value, 'NX') : await redis.set(key, value, 'PX', ms(ttlMs), 'NX')
      return reply === 'OK'
    },
    async del(key) {
      await redis.del(key)
    },
    async incr(key, by, ttlMs) {
      if (!Number.isSafeInteger(by)) throw new Error(`incr(): ${by} is not an integer`)
      return Number(await redis.incrWithTtl(key, by, ms(ttlMs)))
    },
    async ttl(key) {
      const left = await redis.pttl(key)
      return left >= 0 ? Math.max(1, left) : null
    },
    async sadd(key, member) {
      return (await redis.sadd(key, member)) === 1
    },
    async srem(key, member) {
      return (await redis.srem(key, member)) === 1
    },
    async smembers(key) {
      return redis.smembers(key)
    },
    async scard(key) {
      return redis.scard(key)
    },
    async ping() {
      await redis.ping()
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}

function ms(ttlMs: number): number {
  if (!(ttlMs > 0) || !Number.isFinite(ttlMs)) throw new Error(`ttlMs must be a positive number, got ${ttlMs}`)
  return Math.ceil(ttlMs)
}
