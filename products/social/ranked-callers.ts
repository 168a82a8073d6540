import type { CallerRecord } from './caller-state.ts'
import { keptFromChanges } from '../../core/serving/kept-from-changes.ts'

/** Score descending (a caller without one last), then handle: caller_state's ranked order. */
export function rankOrder(a: CallerRecord, b: CallerRecord): number {
  const [sa, sb] = [a.score ?? Number.NEGATIVE_INFINITY, b.score ?? Number.NEGATIVE_INFINITY]
  if (sa !== sb) return sb - sa
  return a.handle < b.handle ? -1 : a.handle > b.handle ? 1 : 0
}

export interface RankedCallers {
  /** The measured callers in rank order, current with every change told so far. */
  list(): Promise<CallerRecord[]>
  /** These callers' records changed (a caller-state pass wrote them): read them again by key. */
  changed(handles: Iterable<string>): void
  /** Everything may have changed (a rebuild): read the whole list again. */
  reset(): void
}

/**
 * The measured callers by score, read whole once (and after a rebuild), then kept current from
 * the callers each sync names, read by key (core/serving/kept-from-changes.ts): a new data
 * version costs the engine a read of the callers that changed, not a scan of caller_state.
 * Memory: one record per measured caller (the /callers answer itself).
 */
export function createRankedCallers(read: {
  /** Every measured caller. */
  all(): Promise<CallerRecord[]>
  /** The current records of `handles` (absent: no record). */
  some(handles: string[]): Promise<Map<string, CallerRecord>>
}): RankedCallers {
  const measured = keptFromChanges<Map<string, CallerRecord>>({
    whole: async () => new Map((await read.all()).map((r) => [r.handle, r])),
    async update(kept, handles) {
      const found = await read.some(handles)
      const next = new Map(kept)
      for (const h of handles) {
        const r = found.get(h)
        if (r?.measured) next.set(h, r)
        else next.delete(h)
      }
      return next
    },
  })
  // Sorted once per kept map.
  const sorted = new WeakMap<Map<string, CallerRecord>, CallerRecord[]>()
  return {
    async list() {
      const m = await measured.value()
      let list = sorted.get(m)
      if (!list) sorted.set(m, (list = [...m.values()].sort(rankOrder)))
      return list
    },
    changed: (handles) => measured.changed(handles),
    reset: () => measured.reset(),
  }
}
