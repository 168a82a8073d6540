/**
 * A change log read by seq can have a row committed after a reader already moved past its seq:
 * two writers (or two inserts of one process) take their seqs in one order and commit in the
 * other. For the kinds such a writer produces, readers re-read a short trailing window below
 * their cursor and apply only the rows they have not applied yet; this remembers which.
 */
export interface LateChanges {
  /** The lowest seq to re-read from, for a reader whose cursor is `after`. */
  from(after: number): number
  /** The rows not applied before (each row is applied once), remembered until they leave the window. */
  unseen<R extends { seq: number; kind: string; key: string }>(rows: R[]): R[]
}

/** Seqs are microseconds (nextServingSeq), so the window is in microseconds too. */
export function createLateChanges(windowUs: number): LateChanges {
  const applied = new Map<string, number>()
  return {
    from: (after) => Math.max(0, after - windowUs),
    unseen(rows) {
      const out = rows.filter((r) => {
        const id = `${r.seq}|${r.kind}|${r.key}`
        if (applied.has(id)) return false
        applied.set(id, r.seq)
        return true
      })
      const newest = rows.reduce((m, r) => Math.max(m, r.seq), 0)
      for (const [id, seq] of applied) if (seq < newest - windowUs) applied.delete(id)
      return out
    },
  }
}

/** How far back readers look for late rows: far beyond an insert's time, short enough to stay a small range read. */
export const LATE_CHANGES_WINDOW_US = 10_000_000
