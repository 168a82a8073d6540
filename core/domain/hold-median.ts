/**
 * The median hold of closed lots, defined once for every venue's receipt: the middle hold in
 * seconds, or the mean of the middle two for an even number of lots; null without a closed lot.
 * Holds come counted (how many lots closed after each hold), as the hold-count tables keep them,
 * so the work is the number of distinct holds, not of lots.
 */
export function medianHold(counts: ReadonlyArray<{ hold: number; lots: number }>): number | null {
  const sorted = [...counts].filter((c) => c.lots > 0).sort((a, b) => a.hold - b.hold)
  const total = sorted.reduce((n, c) => n + c.lots, 0)
  if (total === 0) return null
  // 1-based ranks of the middle lot(s): one for an odd total, two for an even one.
  const lo = Math.floor((total + 1) / 2)
  const hi = Math.floor(total / 2) + 1
  let seen = 0
  let low: number | undefined
  for (const c of sorted) {
    seen += c.lots
    if (low === undefined && seen >= lo) low = c.hold
    if (seen >= hi) return (low! + c.hold) / 2
  }
  return low ?? null
}
