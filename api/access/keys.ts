import { createHash, randomBytes } from 'node:crypto'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { PlanName } from '../../core/plans.ts'
import { countCacheLookup } from '../../core/metrics.ts'
import type { Store } from '../../core/store/types.ts'
import { createBoundedCache } from '../../core/serving/bounded-cache.ts'

export const KEY_PREFIX = 'svc_live_'
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const KEY_SHAPE = /^svc_live_[0-9A-Za-z]{32}$/

/** A new key: the live prefix and 32 random base62 characters (rejection sampling, no bias). */
export function generateKey(): string {
  let out = ''
  while (out.length < 32) {
    for (const b of randomBytes(48)) if (b < 248 && out.length < 32) out += BASE62[b % 62]
  }
  return KEY_PREFIX + out
}

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex')
export const looksLikeKey = (s: string) => KEY_SHAPE.test(s)

export interface KeyRecord {
  keyHash: string
  prefix: string
  plan: PlanName
  createdAt: string
  revokedAt: string | null
}

/** How long a verified key is trusted from memory before ClickHouse is asked again (revocations). */
const CACHE_MS = 5_000
/**
 * Lookups remembered, answers for unknown keys included (so a key tried again within CACHE_MS
 * costs no engine query); bounded, since the keys tried are the caller's choice.
 */
export const KEY_CACHE_ENTRIES = 10_000

/**
 * Subscription keys, stored hashed: in ClickHouse (`api_keys`: the durable record, also for the
 * embedded mode) and, written through, in the store (Redis when configured), so that every API
 * process sharing the store sees the same keys, whatever ClickHouse each one has. The store's
 * copy may be lost (a Redis that comes back empty): lookups then find the key in ClickHouse.
 * While the store does not answer, a key cannot be checked and the call answers 503. A key is
 * shown once, by `create`.
 */
export function createKeyRegistry(ch: ClickHouseClient, store?: Store, opts: { cacheEntries?: number } = {}) {
  const cache = createBoundedCache<KeyRecord | null>(opts.cacheEntries ?? KEY_CACHE_ENTRIES, CACHE_MS)
  // Live keys just looked up, by the key as presented: a busy caller's key is not hashed again on
  // every call (in memory only, for CACHE_MS, like the lookup it came from; never stored).
  const presentedCache = createBoundedCache<KeyRecord>(opts.cacheEntries ?? KEY_CACHE_ENTRIES, CACHE_MS)

  async function write(r: KeyRecord): Promise<void> {
    if (store) {
      await store.set(`apikey:${r.keyHash}`, JSON.stringify(r))
      await store.sadd('apikeys', r.keyHash)
    }
    await ch.insert({
      table: 'api_keys',
      values: [{ key_hash: r.keyHash, prefix: r.prefix, plan: r.plan, created_at: Date.parse(r.createdAt), revoked_at: r.revokedAt ? Date.parse(r.revokedAt) : null, version: Date.now() * 1000 + Math.floor(Math.random() * 1000) }],
      format: 'JSONEachRow',
      clickhouse_settings: { insert_deduplicate: 0 },
    })
  }

  async function rows(where: string, params: Record<string, unknown>): Promise<KeyRecord[]> {
    const r = await queryRows<{ key_hash: string; prefix: string; plan: PlanName; created_at: string; revoked_at: string | null }>(
      ch,
      `SELECT key_hash, prefix, plan, created_at, revoked_at FROM api_keys FINAL WHERE ${where} ORDER BY created_at`,
      params,
    )
    return r.map((x) => ({ keyHash: x.key_hash, prefix: x.prefix, plan: x.plan, createdAt: x.created_at, revokedAt: x.revoked_at }))
  }

  /** Keys known here or to any process sharing the store, newest version of each. */
  async function all(): Promise<KeyRecord[]> {
    const records = new Map((await rows('1', {})).map((r) => [r.keyHash, r]))
    if (store) {
      for (const h of await store.smembers('apikeys')) {
        const v = await store.get(`apikey:${h}`)
        if (v) records.set(h, JSON.parse(v) as KeyRecord)
      }
    }
    return [...records.values()].sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1))
  }

  /** The live record of a key by its hash (a connection token names its key this way), or null. */
  async function byHash(h: string): Promise<KeyRecord | null> {
    const hit = cache.get(h)
    countCacheLookup('api_keys', hit !== undefined)
    if (hit !== undefined) return hit
    const shared = store ? await store.get(`apikey:${h}`) : null
    const [r] = shared ? [JSON.parse(shared) as KeyRecord] : await rows('key_hash = {h:String}', { h })
    const record = r && !r.revokedAt ? r : null
    cache.set(h, record)
    return record
  }

  /** A live key verified within CACHE_MS, answered from memory without hashing it; else undefined. */
  function held(key: string): KeyRecord | undefined {
    const record = presentedCache.get(key)
    if (record) countCacheLookup('api_keys', true)
    return record
  }

  return {
    /** Issue a key; the only time it exists in clear. */
    async create(plan: PlanName): Promise<{ key: string; record: KeyRecord }> {
      const key = generateKey()
      const record: KeyRecord = { keyHash: hashKey(key), prefix: key.slice(0, KEY_PREFIX.length + 4), plan, createdAt: new Date().toISOString(), revokedAt: null }
      await write(record)
      return { key, record }
    },
    list: all,
    /** Revoke every live key with this prefix; returns how many. */
    async revoke(prefix: string): Promise<number> {
      const live = (await all()).filter((r) => r.prefix === prefix && !r.revokedAt)
      for (const r of live) await write({ ...r, revokedAt: new Date().toISOString() })
      for (const r of live) cache.delete(r.keyHash)
      if (live.length) presentedCache.clear()
      return live.length
    },
    /**
     * The live record of a key, or null. A key verified within the last CACHE_MS is answered from
     * memory; otherwise it is looked up, after `beforeLookup` (the gate's failed-lookup cap, which
     * guards lookups only) has let it.
     */
    async verify(key: string, beforeLookup?: () => Promise<void>): Promise<KeyRecord | null> {
      const known = held(key)
      if (known) return known
      if (!looksLikeKey(key)) return null
      const h = hashKey(key)
      const cached = cache.get(h)
      if (cached) {
        countCacheLookup('api_keys', true)
        return cached
      }
      await beforeLookup?.()
      // Only a record read now is remembered by the presented key, so it is never trusted
      // longer than CACHE_MS after its lookup.
      const record = await byHash(h)
      if (record && cached === undefined) presentedCache.set(key, record)
      return record
    },
    held,
    byHash,
    /** Lookups held in memory now (at most `cacheEntries`). */
    cacheSize: () => cache.size(),
  }
}

export type KeyRegistry = ReturnType<typeof createKeyRegistry>
