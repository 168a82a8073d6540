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
  /**
   * The value kept for `key` once its load has settled (touched, counted as a hit), else
   * undefined (not kept, or still loading: `get` waits for it). Read without a promise.
   */
  kept(key: string): { value: V } | undefined
  /** Whether `key` is kept (or loading), without touching it or counting a lookup. */
  has(key: string): boolean
  /** The value kept for `key` once its load has settled, without touching it or counting a lookup. */
  peek(key: string): { value: V } | undefined
  /** Keep `value` for `key` as a settled load (a value its writer handed over, read by nobody). */
  set(key: string, value: V): void
  delete(key: string): void
  clear(): void
  size(): number
}

/** `name` labels its hits and misses in `svc_cache_lookups_total`. */
export function createKeyedCache<V>(maxEntries: number, name = 'keyed'): KeyedCache<V> {
  const entries = new LruMap<Promise<V>>(maxEntries)
  // What each kept load resolved to, read without awaiting it: a page of 20 kept keys is then
  // gathered at once instead of in 20 microtask turns (weak: it goes with its promise).
  const settled = new WeakMap<Promise<V>, { value: V }>()

  function keep(key: string, value: Promise<V>): void {
    entries.set(key, value)
    value.then(
      (v) => void settled.set(value, { value: v }),
      // A failed load is not kept: the next call retries.
      () => {
        if (entries.peek(key) === value) entries.delete(key)
      },
    )
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
      const missing: string[] = []
      // Kept keys first, then the ones loaded now: each with its value when its load has
      // settled, else the load to wait for.
      const foundKeys: string[] = []
      const found: Array<{ value: V } | Promise<V>> = []
      for (const k of unique) {
        const cached = entries.get(k)
        if (!cached) {
          missing.push(k)
          continue
        }
        foundKeys.push(k)
        found.push(settled.get(cached) ?? cached)
      }
      countCacheLookup(name, true, unique.length - missing.length)
      countCacheLookup(name, false, missing.length)
      if (missing.length) {
        const loaded = loadMany(missing)
        for (const k of missing) {
          const value = loaded.then((m) => (m.has(k) ? m.get(k)! : absent))
          keep(k, value)
          foundKeys.push(k)
          found.push(value)
        }
      }
      const out = new Map<string, V>()
      for (let i = 0; i < found.length; i++) {
        const f = found[i]!
        out.set(foundKeys[i]!, f instanceof Promise ? await f : f.value)
      }
      return out
    },
    kept(key) {
      const cached = entries.get(key)
      const value = cached && settled.get(cached)
      if (value) countCacheLookup(name, true)
      return value
    },
    has: (key) => entries.has(key),
    peek(key) {
      const cached = entries.peek(key)
      return cached && settled.get(cached)
    },
    set(key, value) {
      const kept = Promise.resolve(value)
      entries.set(key, kept)
      settled.set(kept, { value })
    },
    delete: (key) => void entries.delete(key),
    clear: () => entries.clear(),
    size: () => entries.size,
  }
}
