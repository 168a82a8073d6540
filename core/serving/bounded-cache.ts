import { LruMap } from './lru-map.ts'

/**
 * A cache of short-lived answers keyed by something a caller chooses (a presented key or token):
 * entries expire after `ttlMs`, and at most `maxEntries` are held, the least recently used
 * evicted first. A caller sending endless distinct made-up credentials fills it and no more.
 */
export interface BoundedCache<V> {
  /** The value cached for `key`, or undefined when absent or expired. */
  get(key: string): V | undefined
  set(key: string, value: V): void
  delete(key: string): void
  clear(): void
  /** Entries held now (expired ones included until they are read or evicted). */
  size(): number
}

export function createBoundedCache<V>(maxEntries: number, ttlMs: number): BoundedCache<V> {
  if (!(maxEntries >= 1)) throw new Error(`createBoundedCache(): maxEntries must be at least 1, got ${maxEntries}`)
  const entries = new LruMap<{ value: V; at: number }>(maxEntries)
  return {
    get(key) {
      const e = entries.get(key)
      if (!e) return undefined
      if (Date.now() - e.at < ttlMs) return e.value
      entries.delete(key)
      return undefined
    },
    set(key, value) {
      entries.set(key, { value, at: Date.now() })
    },
    delete: (key) => void entries.delete(key),
    clear: () => entries.clear(),
    size: () => entries.size,
  }
}
