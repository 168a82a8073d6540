/**
 * The recent window of an append-only feed, in cursor order, in memory (DESIGN §6: append-only
 * feeds keep their recent window). The pipeline appends once per served batch; a page whose
 * cursor lies inside the window is answered from it without the engine; an older cursor is the
 * caller's to read from the engine by key. Bounded: past `maxItems` the oldest items go, and the
 * window then only covers cursors at or after the newest item it dropped.
 *
 * Long polls wait here: `waitBeyond(us)` resolves when an item past `us` is appended (or when
 * the wait is given up), so a poller at the head hears of a new item the moment its batch is served.
 */
export interface FeedItemRef {
  /** The cursor: microseconds since the epoch (visible_at). */
  us: number
  key: string
  /** Block the item belongs to (a rollback drops the window's items from its block on). */
  block: number
}

export interface FeedWindow {
  /** Whether a page after `afterUs` can be answered from the window alone. */
  coversAfter(afterUs: number): boolean
  /** Whether a newest-first page can be: the window holds the whole feed, or `limit` items before the bound. */
  coversBefore(throughUs: number, limit: number, beforeUs?: number): boolean
  /** Items with us in (afterUs, throughUs], oldest first, at most `limit`. */
  after(afterUs: number, throughUs: number, limit: number): FeedItemRef[]
  /** Items with us <= throughUs and < beforeUs, newest first, at most `limit`. */
  before(throughUs: number, limit: number, beforeUs?: number): FeedItemRef[]
  /** The newest cursor held (or null when empty). */
  lastUs(): number | null
  /** Replace the whole window: the newest items of the feed, oldest first; `complete` when they are all there are. */
  reset(items: FeedItemRef[], complete: boolean): void
  /** Append items newer than everything held, oldest first. */
  append(items: FeedItemRef[]): void
  /** Resolve true when an item with us > `us` is held, false when `ms` pass or `signal` aborts first. */
  waitBeyond(us: number, ms: number, signal?: AbortSignal): Promise<boolean>
  /** Long polls waiting now. */
  waiting(): number
  size(): number
}

export function createFeedWindow(maxItems: number): FeedWindow {
  let items: FeedItemRef[] = []
  // Cursors at or after this are covered: -Infinity while the window holds the feed from its start.
  let floorUs = Number.POSITIVE_INFINITY
  const waiters = new Set<{ us: number; wake(found: boolean): void }>()

  /** Index of the first item with us > x (binary search: items are in cursor order). */
  const firstAfter = (x: number) => {
    let lo = 0
    let hi = items.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (items[mid]!.us > x) hi = mid
      else lo = mid + 1
    }
    return lo
  }

  const trim = () => {
    if (items.length <= maxItems) return
    const cut = items.length - maxItems
    floorUs = items[cut - 1]!.us
    items = items.slice(cut)
  }

  const wakeWaiters = () => {
    const last = items.at(-1)?.us
    if (last === undefined) return
    for (const w of waiters) {
      if (last > w.us) {
        waiters.delete(w)
        w.wake(true)
      }
    }
  }

  return {
    coversAfter: (afterUs) => afterUs >= floorUs,
    coversBefore(throughUs, limit, beforeUs = Number.MAX_SAFE_INTEGER) {
      if (floorUs === Number.NEGATIVE_INFINITY) return true
      const bound = Math.min(throughUs, beforeUs - 1)
      return firstAfter(bound) >= limit
    },
    after(afterUs, throughUs, limit) {
      const out: FeedItemRef[] = []
      for (let i = firstAfter(afterUs); i < items.length && out.length < limit; i++) {
        const item = items[i]!
        if (item.us > throughUs) break
        out.push(item)
      }
      return out
    },
    before(throughUs, limit, beforeUs = Number.MAX_SAFE_INTEGER) {
      const out: FeedItemRef[] = []
      for (let i = firstAfter(throughUs) - 1; i >= 0 && out.length < limit; i--) {
        const item = items[i]!
        if (item.us < beforeUs) out.push(item)
      }
      return out
    },
    lastUs: () => items.at(-1)?.us ?? null,
    reset(next, complete) {
      items = next.slice()
      // A bounded reset covers cursors from its first item on: older ones may have items it lacks.
      floorUs = complete ? Number.NEGATIVE_INFINITY : (items[0]?.us ?? Number.POSITIVE_INFINITY)
      trim()
      wakeWaiters()
    },
    append(next) {
      const last = items.at(-1)?.us ?? Number.NEGATIVE_INFINITY
      for (const item of next) if (item.us > last || (item.us === last && item.key > items.at(-1)!.key)) items.push(item)
      trim()
      wakeWaiters()
    },
    waitBeyond(us, ms, signal) {
      if ((items.at(-1)?.us ?? Number.NEGATIVE_INFINITY) > us) return Promise.resolve(true)
      return new Promise<boolean>((resolve) => {
        const waiter = {
          us,
          wake(found: boolean) {
            clearTimeout(timer)
            signal?.removeEventListener('abort', abort)
            resolve(found)
          },
        }
        const abort = () => {
          waiters.delete(waiter)
          waiter.wake(false)
        }
        const timer = setTimeout(abort, ms)
        signal?.addEventListener('abort', abort, { once: true })
        waiters.add(waiter)
      })
    },
    waiting: () => waiters.size,
    size: () => items.length,
  }
}
