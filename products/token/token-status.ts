import { DEAD_AFTER_IDLE_SECONDS, DEAD_LIQUIDITY_REMOVED_SHARE } from './real-token.ts'

/** Why a token is dead, as records and the API name it. */
export const DEAD_REASONS = ['idle_72h', 'liquidity_removed'] as const
export type DeadReason = (typeof DEAD_REASONS)[number]

/**
 * Whether a token is dead at chain time `now` (unix seconds): no swap for 72 h since its last
 * activity, or more than 90% of its launch pool's liquidity removed. Liquidity is compared in
 * the pool's own units (DESIGN §7; see migration 004).
 */
export function deadReason(t: { lastActivity: number | null; liquidityAdded: bigint; liquidityRemoved: bigint }, now: number): DeadReason | null {
  const share = BigInt(Math.round(DEAD_LIQUIDITY_REMOVED_SHARE * 1000))
  if (t.liquidityAdded > 0n && t.liquidityRemoved * 1000n > t.liquidityAdded * share) return 'liquidity_removed'
  if (t.lastActivity !== null && now - t.lastActivity > DEAD_AFTER_IDLE_SECONDS) return 'idle_72h'
  return null
}

/** A ratio of two integers as a decimal string with `places` decimals, trailing zeros trimmed. */
export function ratioDecimal(num: bigint, den: bigint, places = 18): string {
  if (den === 0n) return '0'
  const scaled = (num * 10n ** BigInt(places)) / den
  const s = scaled.toString().padStart(places + 1, '0')
  const int = s.slice(0, -places)
  const frac = s.slice(-places).replace(/0+$/, '')
  return frac ? `${int}.${frac}` : int
}
