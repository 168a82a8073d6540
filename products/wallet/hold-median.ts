/**
 * The median hold of closed lots, defined once for every venue's receipt: the middle hold in
 * seconds, or the mean of the middle two for an even number of lots; null without a closed lot.
 * Holds come counted (how many lots closed after each hold), as the hold-count tables keep them
 * (fifo_hold_counts, solana_hold_counts), and the median is taken where they are, in ClickHouse:
 * a receipt moves one number, not the wallet's distinct holds.
 *
 * `medianHoldSql(hold, lots)` is an aggregate expression over rows of (hold seconds, lots with
 * that hold); rows of one hold may repeat (unmerged parts). Nullable(Float64).
 */
export function medianHoldSql(hold: string, lots: string): string {
  // quantilesExactWeighted(level) answers the first value (in order) whose cumulative weight
  // reaches ceil(total x level): level 0.5 gives the lot at rank ceil(total / 2), the lower middle;
  // a level a hair above 0.5 gives rank floor(total / 2) + 1, the upper middle (the same lot for an
  // odd total), exact while total x 1e-12 < 0.5. One state, hashed by hold: no per-row lambdas.
  return `if(sum(${lots}) = 0, NULL, arraySum(quantilesExactWeighted(0.5, 0.500000000001)(toUInt32(${hold}), toUInt64(${lots}))) / 2)`
}
