/**
 * A trader's style from the median hold of its closed lots (DESIGN §7, the wallet receipts):
 * `scalper` under one hour, `swing` under seven days, `holder` beyond; null without a closed lot.
 */
export type HoldStyle = 'scalper' | 'swing' | 'holder'

export const SCALPER_UNDER_SECONDS = 3_600
export const SWING_UNDER_SECONDS = 7 * 86_400

export function holdStyle(medianHoldSeconds: number | null): HoldStyle | null {
  if (medianHoldSeconds === null) return null
  if (medianHoldSeconds < SCALPER_UNDER_SECONDS) return 'scalper'
  return medianHoldSeconds < SWING_UNDER_SECONDS ? 'swing' : 'holder'
}
