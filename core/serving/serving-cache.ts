import { countCacheLookup } from '../metrics.ts'
import type { Store } from '../store/types.ts'
import { LruMap } from './lru-map.ts'

/**
 * The serving cache. chDB answers a point query in milliseconds but not thousands per second,
 * so hot answers are computed once per watermark (per ingested block batch) and then served
 * from memory. An entry is valid while its version (the watermark it was computed at) is
 * current; concurrent misses for one key share a single load. With a shared store (Redis),
 * API processes also reuse each other's answers for the same version.
 */
export interface ServingCache {
  get<T>(key: string, version: string, load: () => Promise<T>): Promise<T>
  /** Entries currently held in process memory. */
  size(): number
}

interface Entry {
  version: string
  value: Promise<unknown>
}

export function createServingCache(opts: { maxEntries?: number; store?: Store; storeTtlMs?: number } = {}): ServingCache {
  const maxEntries = opts.maxEntries ?? 50_000
  const entries = new LruMap<Entry>(maxEntries)

  async function loadThroughStore<T>(key: string, version: string, load: () => Promise<T>): Promise<T> {
    if (!opts.store) return load()
    const storeKey = `cache:${key}@${version}`
    // The shared store only saves work: when it fails (Redis down or silent) the answer is
    // computed here and not shared, instead of failing the request.
    const hit = await opts.store.get(storeKey).catch(() => null)
    countCacheLookup('answers_shared_store', hit !== null)
    if (hit !== null) return JSON.parse(hit) as T
    const value = await load()
    await opts.store.set(storeKey, JSON.stringify(value), opts.storeTtlMs ?? 60_000).catch(() => {})
    return value
  }

  return {
    get<T>(key: string, version: string, load: () => Promise<T>): Promise<T> {
      const e = entries.get(key)
      countCacheLookup('answers', e !== undefined && e.version === version)
      if (e && e.version === version) return e.value as Promise<T>
      const value = loadThroughStore(key, version, load)
      // A failed load must not stay cached: the next call retries.
      value.catch(() => {
        if (entries.peek(key)?.value === value) entries.delete(key)
      })
      entries.set(key, { version, value })
      return value
    },
    size: () => entries.size,
  }
}
