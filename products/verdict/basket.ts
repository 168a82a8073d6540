/**
 * The paper basket and the calibration proof (DESIGN §7 /basket, /proof.json): computed only
 * from verdicts recorded 15 minutes after launch (chain clock) and their forward marks, recorded
 * when chain time passed them. Measured, never projected: a member without a mark at a horizon
 * has no return there, and nothing is extrapolated.
 */
export const VERDICT_DELAY_SECONDS = 15 * 60

export const BASKET_HORIZONS = [
  { name: '1h', seconds: 3600 },
  { name: '24h', seconds: 86_400 },
  { name: '7d', seconds: 7 * 86_400 },
] as const
export type HorizonName = (typeof BASKET_HORIZONS)[number]['name']

/**
 * A verdict taken later than this after its due time (a batch that spanned more chain time, a
 * backfill) read inputs from after +15 min: it is recorded, shown with its lag, and left out of
 * the basket and the proof, whose figures are from on-time verdicts only.
 */
export const LATE_AFTER_SECONDS = 600

/** The signal whose launches enter the basket. */
export const BASKET_SIGNAL = 'low_risk'

/** mark / entry - 1 from raw quote amounts (WETH wei, token base units), 6 decimals; null without both. */
export function forwardReturn(entry: { weth: bigint; token: bigint } | null, mark: { weth: bigint; token: bigint } | null): number | null {
  if (!entry || !mark || entry.weth === 0n || entry.token === 0n || mark.token === 0n) return null
  // (mark.weth / mark.token) / (entry.weth / entry.token), in integers scaled by 1e12.
  const scaled = (mark.weth * entry.token * 10n ** 12n) / (mark.token * entry.weth)
  return Math.round((Number(scaled) / 1e12 - 1) * 1e6) / 1e6
}

/** The median of the values (mean of the middle two for an even count); null for none. */
export function median(xs: number[]): number | null {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  return medianOfMiddles(s[(s.length - 1) >> 1]!, s[s.length >> 1]!)
}

/**
 * The median from the two middle values of the sorted list (the same value for an odd count),
 * 6 decimals: what SQL's quantileExactLow(0.5) and quantileExactHigh(0.5) give.
 */
export function medianOfMiddles(low: number, high: number): number {
  return Math.round(((low + high) / 2) * 1e6) / 1e6
}

/** Share of the values above 0 (4 decimals); null for none. */
export function hitRate(xs: number[]): number | null {
  return share(xs.filter((x) => x > 0).length, xs.length)
}

/** Share n / of, 4 decimals; null when of is 0. */
export function share(n: number, of: number): number | null {
  return of === 0 ? null : Math.round((n / of) * 10_000) / 10_000
}

/** One 24 h mark of a member, in the order the marks were taken. */
export interface ClosedPosition {
  markedAt: number
  markedBlock: number
  return: number
}

export interface EquityPoint {
  at: number
  block: number
  closed: number
  /** Sum of (1 + return) over the positions closed so far, each staked 1. */
  equity: number
  /** equity / closed - 1. */
  cumulative_return: number
}

/**
 * The equity curve of the paper basket: each member is staked 1 at its +15 min price and closed
 * at its 24 h mark; a point after each close, in the order the marks were taken (chain clock).
 */
export function equityCurve(closed: ClosedPosition[]): EquityPoint[] {
  const sorted = [...closed].sort((a, b) => a.markedAt - b.markedAt || a.markedBlock - b.markedBlock)
  let equity = 0
  return sorted.map((c, i) => {
    equity += 1 + c.return
    const e = Math.round(equity * 1e6) / 1e6
    return { at: c.markedAt, block: c.markedBlock, closed: i + 1, equity: e, cumulative_return: Math.round((equity / (i + 1) - 1) * 1e6) / 1e6 }
  })
}

export const BASKET_RULES_MARKDOWN = `
How the basket and the proof are measured. A launch's verdict (the /verdict rule) is taken once, by the pipeline, in the
first served batch whose chain time reaches launch + 15 min, and recorded with the block it was taken at and its lag; it is
never recomputed. Each recorded verdict is marked at +1 h, +24 h and +7 d after that due time, once, when chain time reaches
it: the latest swap price, whether the token is real and whether it is dead at the mark. Returns are mark price / entry price
- 1 from the recorded prices. Verdicts taken more than ${LATE_AFTER_SECONDS} s after their due time (a batch or backfill that
spanned more chain time) are counted apart as \`late\` and left out of the figures. A \`${BASKET_SIGNAL}\` launch with an entry
price enters the basket (staked 1); the equity curve adds a point at each 24 h mark. Horizons not reached yet have no figure.
`.trim()

/** A verdict as recorded at +15 min (launch_verdicts). Times are unix seconds (chain clock). */
export interface RecordedVerdict {
  token: string
  symbol: string
  signal: string
  confidence: number
  launchedAt: number
  takenBlock: number
  takenAt: number
  lagSeconds: number
  entryPrice: string | null
  entryBlock: number | null
}

/** A forward mark as recorded (launch_marks). */
export interface RecordedMark {
  token: string
  horizon: HorizonName
  markedBlock: number
  markedAt: number
  price: string | null
  return: number | null
  isReal: boolean
  dead: string | null
}

/** A verdict taken more than LATE_AFTER_SECONDS after its due time is late. */
export const isLateLag = (lagSeconds: number) => lagSeconds > LATE_AFTER_SECONDS
export const isLate = (v: RecordedVerdict) => isLateLag(v.lagSeconds)

/** The figures of a set of measured returns, from their count, how many are above 0 and the two middle values. */
export interface ReturnStats {
  n: number
  positive: number
  low: number
  high: number
}

export function returnFigures(r: ReturnStats): { marked: number; hit_rate: number | null; median_return: number | null } {
  return { marked: r.n, hit_rate: share(r.positive, r.n), median_return: r.n ? medianOfMiddles(r.low, r.high) : null }
}
