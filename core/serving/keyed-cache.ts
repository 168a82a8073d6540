import { countCacheLookup } from '../metrics.ts'
import { LruMap } from './lru-map.ts'

/**
 * Values kept by key, bounded by an entry count (least recently used evicted first), dropped one
 * key at a time when the pipeline says that key changed. Concurrent misses for one key share one
 * load. A value loaded while its key was dropped is returned to its caller but not kept, so a
 * change is never hidden by a read that started before it.
 */
export interface KeyedCache<V> {
  get(key: string, load: () => Promise<V>): Promise<V>
  /** Values of many keys; the misses are loaded together by one call of `loadMany`. */
  getMany(keys: string[], loadMany: (missing: string[]) => Promise<Map<string, V>>, absent: V): Promise<Map<string, V>>
  /** Whether `key` is kept (or loading), without touching it or counting a lookup. */
  has(key: string): boolean
  delete(key: string): void
  clear(): void
  size(): number
}

/** `name` labels its hits and misses in `svc_cache_lookups_total`. */
export function createKeyedCache<V>(maxEntries: number, name = 'keyed'): KeyedCache<V> {
  const entries = new LruMap<Promise<V>>(maxEntries)

  function keep(key: string, value: Promise<V>): void {
    entries.set(key, value)
    // A failed load is not kept: the next call retries.
    value.catch(() => {
      if (entries.peek(key) === value) entries.delete(key)
    })
  }

  return {
    get(key, load) {
      const cached = entries.get(key)
      countCacheLookup(name, cached !== undefined)
      if (cached) return cached
      const value = load()
      keep(key, value)
      return value
    },
    async getMany(keys, loadMany, absent) {
      const unique = [...new Set(keys)]
      const out = new Map<string, V>()
      const missing: string[] = []
      const pending: Array<[string, Promise<V>]> = []
      for (const k of unique) {
        const cached = entries.get(k)
        if (cached) pending.push([k, cached])
        else missing.push(k)
      }
      countCacheLookup(name, true, unique.length - missing.length)
      countCacheLookup(name, false, missing.length)
      if (missing.length) {
        const loaded = loadMany(missing)
        for (const k of missing) {
          const value = loaded.then((m) => (m.has(k) ? m.get(k)! : absent))
          keep(k, value)
          pending.push([k, value])
        }
      }
      for (const [k, v] of pending) out.set(k, await v)
      return out
    },
    has: (key) => entries.has(key),
    delete: (key) => void entries.delete(key),
    clear: () => entries.clear(),
    size: () => entries.size,
  }
}
