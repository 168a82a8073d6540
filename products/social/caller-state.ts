import { scoreCaller, type CallerCounts, type CallerGrade } from './caller-grade.ts'

/** A caller's graded record with its mutual-follow cluster: one row of `caller_state` (migration 015). */
export interface CallerRecord extends CallerGrade {
  handle: string
  /** Mutual-follow cluster id (its smallest handle), or null for an independent account. */
  cluster: string | null
}

/** What scoreCaller needs and the counts it keeps (caller_stats, summed for one author). */
export interface CallerInputs extends CallerCounts {
  author: string
}

export interface CallerStateRow {
  author: string
  calls: number
  graded: number
  early: number
  momentum: number
  hits: number
  early_rate: number
  momentum_rate: number
  hit_rate: number
  median_return_1h: number | null
  score: number | null
  grade: string
  measured: number
  cluster: string
}

export const CALLER_STATE_COLUMNS =
  'author, calls, graded, early, momentum, hits, early_rate, momentum_rate, hit_rate, median_return_1h, score, grade, measured, cluster'

/** The row stored for a caller: the counts and what products/social/caller-grade.ts makes of them. */
export function callerStateRow(c: CallerInputs, cluster: string | null): CallerStateRow {
  const g = scoreCaller(c)
  return {
    author: c.author, calls: c.calls, graded: c.graded, early: c.early, momentum: c.momentum, hits: c.hits,
    early_rate: g.earlyRate, momentum_rate: g.momentumRate, hit_rate: g.hitRate, median_return_1h: g.medianReturn1h,
    score: g.score, grade: g.grade ?? '', measured: g.measured ? 1 : 0, cluster: cluster ?? '',
  }
}

/** A row as read back (ClickHouse answers 64-bit integers as strings). */
export function callerRecordOfRow(r: CallerStateRow): CallerRecord {
  return {
    handle: r.author,
    calls: Number(r.calls),
    graded: Number(r.graded),
    earlyRate: Number(r.early_rate),
    momentumRate: Number(r.momentum_rate),
    hitRate: Number(r.hit_rate),
    medianReturn1h: r.median_return_1h === null ? null : Number(r.median_return_1h),
    score: r.score === null ? null : Number(r.score),
    grade: r.grade === '' ? null : (r.grade as CallerRecord['grade']),
    measured: Number(r.measured) === 1,
    cluster: r.cluster === '' ? null : r.cluster,
  }
}

/** Whether two rows say the same (a refresh writes only rows that differ from the stored ones). */
export function sameCallerRow(a: CallerStateRow, b: CallerStateRow): boolean {
  const norm = (r: CallerStateRow) => JSON.stringify(callerRecordOfRow(r)) + `|${Number(r.early)}|${Number(r.momentum)}|${Number(r.hits)}`
  return norm(a) === norm(b)
}
