/**
 * Caller grading (DESIGN §7). A call is an account's first mention of a token. A call is graded
 * once the chain has run an hour past it and the token traded in that hour.
 *
 *  - entry: the first swap price at or after the call; exit: the last swap price at or before
 *    the call plus one hour; the 1 h forward return is exit / entry − 1.
 *  - the run of a token is its becoming real (the block it crossed the thresholds). An early call
 *    is placed before the run of a token that ran; a momentum call is placed after its run began
 *    (isEarlyCall, isMomentumCall: the one definition the grader, the caller records and the dossier use).
 *  - early_rate and momentum_rate are shares of graded calls; hit_rate is the share of graded
 *    calls with a positive 1 h return.
 *  - score = round(100 × (0.5 × early_rate + 0.3 × hit_rate + 0.2 × clamp(0.5 + median_1h_return, 0, 1)))
 *  - grade: A >= 75, B >= 55, C >= 35, else D. A caller is measured with at least 4 graded calls.
 */
/** A call's forward window: it is graded on the swaps of the hour after it. */
export const CALL_WINDOW_SECONDS = 3600

/** A swap price seen in a call's window (WETH per token unit; only ratios are used). */
export interface WindowPrice {
  price: number
  /** Unix seconds of the swap's block. */
  at: number
}

/**
 * A call's 1 h forward return, or null when the call is not graded: the chain has not run an
 * hour past the call, or the token did not trade in that hour. `entry` is the first swap at or
 * after the call, `exit` the last at or before the call plus the window (both by block and log
 * order); an entry price of zero cannot be a base, so such a call is not graded.
 */
export function forwardReturn(calledAt: number, chainTime: number, entry: WindowPrice | null, exit: WindowPrice | null): number | null {
  const end = calledAt + CALL_WINDOW_SECONDS
  if (chainTime < end || !entry || !exit) return null
  if (!(entry.price > 0) || entry.at < calledAt || entry.at > end || exit.at > end || exit.at < entry.at) return null
  return exit.price / entry.price - 1
}

/** Early: the call was placed before the token's run (its becoming real). runAt null: no run. */
export function isEarlyCall(calledAt: number, runAt: number | null): boolean {
  return runAt !== null && calledAt < runAt
}

/** Momentum: the call was placed once the token's run had begun. */
export function isMomentumCall(calledAt: number, runAt: number | null): boolean {
  return runAt !== null && calledAt >= runAt
}

/**
 * The median of a multiset (value -> count) as ClickHouse's quantileExactInclusive(0.5) gives it
 * (the median the summaries always had): with the sorted values x and h = 0.5 × (n − 1),
 * x[⌊h⌋] + (h − ⌊h⌋) × (x[⌊h⌋ + 1] − x[⌊h⌋]). null for an empty multiset.
 */
export function medianOfCounts(values: number[], counts: number[]): number | null {
  const pairs = values.map((v, i) => [v, counts[i] ?? 0] as const).filter(([, c]) => c > 0).sort((a, b) => a[0] - b[0])
  const n = pairs.reduce((s, [, c]) => s + c, 0)
  if (n === 0) return null
  const at = (k: number): number => {
    for (const [v, c] of pairs) {
      if (k < c) return v
      k -= c
    }
    return pairs[pairs.length - 1]![0]
  }
  const h = 0.5 * (n - 1)
  const lo = Math.floor(h)
  const x0 = at(lo)
  return lo + 1 >= n ? x0 : x0 + (h - lo) * (at(lo + 1) - x0)
}

/** What grading needs of a caller's calls (kept in caller_stats, migration 012; turned into caller_state rows by products/social/caller-refresh.ts). */
export interface CallerCounts {
  calls: number
  graded: number
  early: number
  momentum: number
  hits: number
  /** Median 1 h forward return over graded calls, null without graded calls. */
  medianReturn1h: number | null
}

export interface CallerGrade {
  calls: number
  graded: number
  earlyRate: number
  momentumRate: number
  hitRate: number
  medianReturn1h: number | null
  score: number | null
  grade: 'A' | 'B' | 'C' | 'D' | null
  measured: boolean
}

export const MEASURED_MIN_GRADED_CALLS = 4

export function gradeOf(score: number): 'A' | 'B' | 'C' | 'D' {
  return score >= 75 ? 'A' : score >= 55 ? 'B' : score >= 35 ? 'C' : 'D'
}

export function scoreCaller(c: CallerCounts): CallerGrade {
  const n = c.graded
  const rate = (k: number) => (n ? k / n : 0)
  const med = n ? c.medianReturn1h : null
  const score = n ? Math.round(100 * (0.5 * rate(c.early) + 0.3 * rate(c.hits) + 0.2 * Math.min(1, Math.max(0, 0.5 + (med ?? 0))))) : null
  return {
    calls: c.calls,
    graded: n,
    earlyRate: rate(c.early),
    momentumRate: rate(c.momentum),
    hitRate: rate(c.hits),
    medianReturn1h: med,
    score,
    grade: score === null ? null : gradeOf(score),
    measured: n >= MEASURED_MIN_GRADED_CALLS,
  }
}

/**
 * Mutual-follow clusters: connected components of the graph whose edges are pairs of accounts
 * following each other. Accounts in one cluster count as one voice. Returns account -> cluster
 * id (the smallest handle in it) for accounts in clusters of two or more.
 */
export function mutualClusters(following: Map<string, Set<string>>): Map<string, string> {
  const parent = new Map<string, string>()
  const find = (x: string): string => {
    let r = x
    while (parent.get(r) !== r) r = parent.get(r)!
    parent.set(x, r)
    return r
  }
  const union = (a: string, b: string) => {
    for (const x of [a, b]) if (!parent.has(x)) parent.set(x, x)
    const [ra, rb] = [find(a), find(b)]
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb)
  }
  for (const [a, outs] of following) for (const b of outs) if (a !== b && following.get(b)?.has(a)) union(a, b)
  const out = new Map<string, string>()
  for (const x of parent.keys()) out.set(x, find(x))
  return out
}
