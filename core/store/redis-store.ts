import { Redis, ReplyError } from 'ioredis'
import { DependencyUnavailableError } from '../dependency.ts'
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

export interface RedisStoreOptions {
  /** Longest wait for one command (and for the first connection); then the store is unavailable. */
  commandTimeoutMs?: number
}

/** Reconnect attempts back off to this interval and never stop: recovery needs no restart. */
const MAX_RECONNECT_DELAY_MS = 1_000
/** Interval of the pings that find out when a silent server answers again. */
const PROBE_MS = 250

/**
 * The store over Redis, shared by every API process that points at the same `url`.
 *
 * A Redis that is down or silent must cost a caller at most `commandTimeoutMs`, never a hang:
 * no offline queue (a command while disconnected fails at once), no resend of commands lost
 * with a connection, a timeout on every command, and reconnection in the background. Every
 * such failure is a DependencyUnavailableError; errors Redis itself answers stay as they are.
 */
export function createRedisStore(url: string, opts: RedisStoreOptions = {}): Store {
  const timeoutMs = opts.commandTimeoutMs ?? 500
  const redis = new Redis(url, {
    connectTimeout: Math.max(timeoutMs, 1_000),
    commandTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(50 * attempt, MAX_RECONNECT_DELAY_MS),
  }) as RedisWithScripts
  redis.defineCommand('incrWithTtl', { numberOfKeys: 1, lua: INCR_WITH_TTL })
  // Failures reach callers as rejected commands; without a listener every reconnect attempt
  // to an unreachable server would also print an "Unhandled error event".
  redis.on('error', () => {})

  // Without an offline queue, a command sent while the first connection is still being made
  // would fail although nothing is wrong: until that first attempt has succeeded or failed,
  // commands wait for it (bounded). A server down at start then costs nothing more than later.
  let firstAttempt: Promise<void> | null = new Promise<void>((resolve) => {
    for (const event of ['ready', 'error', 'close']) redis.once(event, () => resolve())
  })
  void firstAttempt.then(() => (firstAttempt = null))

  // A server that holds the connection and stops answering would cost every command the full
  // timeout, several per request. After one timeout, commands fail at once while a probe
  // pings in the background; the first answer lets them through again.
  let silent = false
  let closed = false
  const probe = () => {
    if (closed) return
    redis.ping().then(
      () => void (silent = false),
      () => void setTimeout(probe, PROBE_MS).unref(),
    )
  }

  async function run<T>(command: () => Promise<T>): Promise<T> {
    if (firstAttempt && redis.status !== 'ready') {
      let timer: NodeJS.Timeout | undefined
      const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))
      await Promise.race([firstAttempt, gaveUp])
      clearTimeout(timer)
    }
    if (silent) throw new DependencyUnavailableError('store', 'redis stopped answering')
    try {
      return await command()
    } catch (err) {
      if (err instanceof ReplyError) throw err
      const message = err instanceof Error ? err.message : String(err)
      if (message === 'Command timed out' && !silent) {
        silent = true
        setTimeout(probe, PROBE_MS).unref()
      }
      throw new DependencyUnavailableError('store', `redis ${redis.status}: ${message}`, { cause: err })
    }
  }

  return {
    kind: 'redis',
    get: (key) => run(() => redis.get(key)),
    async set(key, value, ttlMs) {
      if (ttlMs === undefined) await run(() => redis.set(key, value))
      else await run(() => redis.set(key, value, 'PX', ms(ttlMs)))
    },
    async setIfAbsent(key, value, ttlMs) {
      const reply = await run(() => (ttlMs === undefined ? redis.set(key, value, 'NX') : redis.set(key, value, 'PX', ms(ttlMs), 'NX')))
      return reply === 'OK'
    },
    async del(key) {
      await run(() => redis.del(key))
    },
    async incr(key, by, ttlMs) {
      if (!Number.isSafeInteger(by)) throw new Error(`incr(): ${by} is not an integer`)
      const ttl = ms(ttlMs)
      return Number(await run(() => redis.incrWithTtl(key, by, ttl)))
    },
    async ttl(key) {
      const left = await run(() => redis.pttl(key))
      return left >= 0 ? Math.max(1, left) : null
    },
    async sadd(key, member) {
      return (await run(() => redis.sadd(key, member))) === 1
    },
    async srem(key, member) {
      return (await run(() => redis.srem(key, member))) === 1
    },
    smembers: (key) => run(() => redis.smembers(key)),
    scard: (key) => run(() => redis.scard(key)),
    async ping() {
      await run(() => redis.ping())
    },
    async close() {
      closed = true
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}

function ms(ttlMs: number): number {
  if (!(ttlMs > 0) || !Number.isFinite(ttlMs)) throw new Error(`ttlMs must be a positive number, got ${ttlMs}`)
  return Math.ceil(ttlMs)
}
