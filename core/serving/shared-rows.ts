import type { Store } from '../store/types.ts'

/**
 * Rows shared between API processes through the store (Redis), each kept with the seq
 * (serving_changes) it was read at. A process takes a shared row only when it is not older than
 * the last change of that key this process has seen, nor than where its knowledge of changes
 * begins (its first sync, raised when it forgets old changes): so a row read before a change is
 * never served after it. Changes are remembered for a bounded number of keys. The store may be
 * down or emptied at any time: that is a miss, never an error.
 */
export interface SharedRows<R> {
  /** Rows of `keys` found shared and current; the others are absent from the map. */
  getMany(keys: string[]): Promise<Map<string, R | null>>
  /** Share rows read at `seq` (null: the key has no row). */
  setMany(rows: Map<string, R | null>, seq: number): Promise<void>
  /** The pipeline changed `key` at `seq`. */
  changed(key: string, seq: number): void
  /** Nothing read before `seq` is trusted (a sync that could not name every change). */
  trustFrom(seq: number): void
}

/** How long a shared row stays in the store (it is also dropped by staleness, whatever its age). */
const SHARED_TTL_MS = 10 * 60_000

export function createSharedRows<R>(store: Store, prefix: () => Promise<string>, maxTracked: number): SharedRows<R> {
  const changedAt = new Map<string, number>()
  let floor = Number.MAX_SAFE_INTEGER

  const fresh = (key: string, seq: number) => seq >= Math.max(floor, changedAt.get(key) ?? 0)

  return {
    async getMany(keys) {
      const out = new Map<string, R | null>()
      if (floor === Number.MAX_SAFE_INTEGER || keys.length === 0) return out
      try {
        const p = await prefix()
        const found = await Promise.all(keys.map((k) => store.get(p + k)))
        found.forEach((text, i) => {
          if (text === null) return
          const { seq, row } = JSON.parse(text) as { seq: number; row: R | null }
          if (fresh(keys[i]!, seq)) out.set(keys[i]!, row)
        })
      } catch {
        // The store is down or held something unreadable: read ClickHouse instead.
        return new Map()
      }
      return out
    },
    async setMany(rows, seq) {
      if (rows.size === 0) return
      try {
        const p = await prefix()
        await Promise.all([...rows].map(([k, row]) => store.set(p + k, JSON.stringify({ seq, row }), SHARED_TTL_MS)))
      } catch {
        // Sharing is an optimisation: a store that cannot take the rows changes nothing.
      }
    },
    changed(key, seq) {
      changedAt.delete(key)
      changedAt.set(key, seq)
      if (changedAt.size > maxTracked) {
        const [oldest, at] = changedAt.entries().next().value!
        changedAt.delete(oldest)
        // Forgetting a change means no longer knowing whether a row before it is stale.
        floor = Math.max(floor, at)
      }
    },
    trustFrom(seq) {
      floor = floor === Number.MAX_SAFE_INTEGER ? seq : Math.max(floor, seq)
    },
  }
}
