import { formatEther } from 'viem'

/**
 * When a token is "real" (DESIGN §7): once, in one block, its cumulative swaps, distinct
 * traders and WETH volume all reach these thresholds; that block is recorded and the token
 * stays real. Dead: no swap for 72 hours, or more than 90% of its liquidity removed.
 */
export const REAL_TOKEN_THRESHOLDS = {
  minSwaps: 50,
  minTraders: 20,
  /** 1 WETH in wei. */
  minWethVolumeWei: 10n ** 18n,
} as const

/**
 * Whether a token's running totals (token_activity's: swaps, distinct traders, WETH volume in wei;
 * numbers or decimal strings) meet every threshold: a token not real yet whose totals do turned
 * real in the blocks that brought them there.
 */
export function meetsRealThresholds(totals: { swaps: unknown; traders: unknown; weth_volume: unknown }): boolean {
  return (
    BigInt(String(totals.swaps)) >= BigInt(REAL_TOKEN_THRESHOLDS.minSwaps) &&
    BigInt(String(totals.traders)) >= BigInt(REAL_TOKEN_THRESHOLDS.minTraders) &&
    BigInt(String(totals.weth_volume)) >= REAL_TOKEN_THRESHOLDS.minWethVolumeWei
  )
}

export const DEAD_AFTER_IDLE_SECONDS = 72 * 3600
/** Dead when removed liquidity exceeds this share of added liquidity. */
export const DEAD_LIQUIDITY_REMOVED_SHARE = 0.9

/** The thresholds in the units the documents state them in (whole WETH, hours, percent). */
export const REAL_DEAD_IN_WORDS = {
  swaps: REAL_TOKEN_THRESHOLDS.minSwaps,
  traders: REAL_TOKEN_THRESHOLDS.minTraders,
  weth: formatEther(REAL_TOKEN_THRESHOLDS.minWethVolumeWei),
  idleHours: DEAD_AFTER_IDLE_SECONDS / 3600,
  removedPercent: Math.round(DEAD_LIQUIDITY_REMOVED_SHARE * 100),
} as const
