/**
 * Kept answers loaded again in the background the moment a change drops them, for the keys
 * callers asked recently: a token asked a minute ago is likely asked again, and its next caller
 * should find the answer kept (or its load already in flight, which the keyed caches share)
 * instead of paying the engine reads of a miss. Keys not asked within `recentMs` are only
 * dropped; nothing is loaded that nobody asks for. Bounded: at most `maxKeys` keys remembered,
 * `concurrency` loads at a time, run after the sync that dropped them has finished. Answers whose
 * reads take key lists load the keys one batch dropped together (up to `batchKeys` a call), so the
 * engine reads each part once for them all instead of once per key.
 */
/** Keys one load of a batched answer takes: bounds a statement's key list whatever the batch. */
export const REFRESH_BATCH_KEYS = 500

export interface RefreshAhead {
  /** A caller asked for `key`'s answer. */
  asked(key: string): void
  /** A change dropped `key`'s kept answer: load it again if it was asked recently. */
  dropped(key: string): void
  /** Loads queued or running (for tests and metrics). */
  pending(): number
}

export function createRefreshAhead(opts: {
  /** Load the answers of these keys again (at most `batchKeys` of them). */
  load: (keys: string[]) => Promise<unknown>
  /** The most keys one `load` call takes (default 1: an answer whose reads take one key). */
  batchKeys?: number
  recentMs: number
  concurrency: number
  maxKeys: number
}): RefreshAhead {
  const batchKeys = opts.batchKeys ?? 1
  const askedAt = new Map<string, number>()
  const queue = new Set<string>()
  let running = 0
  let scheduled = false

  function pump(): void {
    scheduled = false
    while (running < opts.concurrency && queue.size > 0) {
      const keys: string[] = []
      for (const key of queue) {
        if (keys.length === batchKeys) break
        keys.push(key)
      }
      for (const key of keys) queue.delete(key)
      running++
      // A failed load is the next caller's miss to retry; nothing else waits on it.
      opts
        .load(keys)
        .catch(() => {})
        .finally(() => {
          running--
          pump()
        })
    }
  }

  return {
    asked(key) {
      askedAt.delete(key)
      askedAt.set(key, Date.now())
      if (askedAt.size > opts.maxKeys) askedAt.delete(askedAt.keys().next().value!)
    },
    dropped(key) {
      const at = askedAt.get(key)
      if (at === undefined) return
      if (Date.now() - at > opts.recentMs) {
        askedAt.delete(key)
        return
      }
      queue.add(key)
      // After the current sync: the load must read the state the change describes.
      if (!scheduled) {
        scheduled = true
        setImmediate(pump)
      }
    },
    pending: () => queue.size + running,
  }
}
