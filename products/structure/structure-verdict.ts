/**
 * The structure verdict of a token's 24 h holder window (DESIGN §7, issue 11): a pure rule over
 * the window's exact balances. Shares are in basis points of the supply at the window end
 * (Σ of every balance but the zero address, pools included), computed in integers.
 *
 * 1. `insufficient_data` when the token has fewer than STRUCTURE_MIN_HOLDERS holders at the
 *    window end, when the chain has less than 24 h of history before the window end (no
 *    baseline block), or when no rule below qualifies (the window holds no evidence).
 * 2. `distribution`: supply moves from large and insider holders to many small ones or to
 *    pools. Large = the STRUCTURE_LARGE_HOLDERS largest holders at the baseline, plus every
 *    insider. Strength = their net outflow (Σ then − Σ now). Qualifies when strength is at least
 *    STRUCTURE_MIN_BPS of supply and at least half of it landed outside them (pool growth plus
 *    the growth of the other wallets), either in pools (pool growth at least half of it) or on
 *    at least STRUCTURE_MIN_RECEIVERS other wallets that grew.
 * 3. `accumulation`: the largest holders grow. Strength = Σ now − Σ then of the
 *    STRUCTURE_LARGE_HOLDERS largest holders at the window end. Qualifies at STRUCTURE_MIN_BPS.
 * 4. `rotation`: holders exit while new holders take comparable size. Exited = Σ baseline
 *    balance of the wallets that went to 0, new = Σ end balance of the wallets that were at 0.
 *    Qualifies when at least STRUCTURE_MIN_ROTATING wallets exited and as many are new, new is
 *    between half and twice exited, and strength = min(exited, new) is at least
 *    STRUCTURE_MIN_BPS.
 * Of the qualifying rules the strongest wins; on equal strength distribution, then
 * accumulation, then rotation.
 */

export const STRUCTURE_VERDICTS = ['rotation', 'distribution', 'accumulation', 'insufficient_data'] as const
export type StructureVerdict = (typeof STRUCTURE_VERDICTS)[number]

export const STRUCTURE_MIN_HOLDERS = 10
export const STRUCTURE_LARGE_HOLDERS = 10
/** 1% of supply. */
export const STRUCTURE_MIN_BPS = 100n
export const STRUCTURE_MIN_RECEIVERS = 5
export const STRUCTURE_MIN_ROTATING = 3

export interface Balances {
  then: bigint
  now: bigint
}

export interface StructureFacts {
  /** Holders (not pools) with a balance above 0 at the window end. */
  holders: number
  /** A baseline block 24 h before the window end exists. */
  fullWindow: boolean
  supply: bigint
  /** The largest holders at the baseline and every insider (each wallet once, pools excluded). */
  large: Balances[]
  /** The largest holders at the window end. */
  topNow: Balances[]
  /** Wallets (not pools) that grew in the window, and the Σ of their growth. */
  grew: { count: number; amount: bigint }
  pools: Balances
  exited: { count: number; then: bigint }
  newHolders: { count: number; now: bigint }
}

export interface StructureJudgement {
  verdict: StructureVerdict
  /** Each rule's strength in basis points of supply (0 when it does not qualify), for audit. */
  strengths: { distribution: bigint; accumulation: bigint; rotation: bigint }
}

const bps = (x: bigint, supply: bigint) => (supply > 0n && x > 0n ? (x * 10_000n) / supply : 0n)
const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n)

export function structureVerdict(f: StructureFacts): StructureJudgement {
  const none = { distribution: 0n, accumulation: 0n, rotation: 0n }
  if (f.holders < STRUCTURE_MIN_HOLDERS || !f.fullWindow || f.supply <= 0n) return { verdict: 'insufficient_data', strengths: none }

  // Distribution.
  const outflow = sum(f.large.map((b) => b.then)) - sum(f.large.map((b) => b.now))
  const largeGrowth = sum(f.large.map((b) => (b.now > b.then ? b.now - b.then : 0n)))
  const largeGrew = f.large.filter((b) => b.now > b.then).length
  const poolGrowth = f.pools.now - f.pools.then
  const othersGrowth = f.grew.amount - largeGrowth
  const othersGrew = f.grew.count - largeGrew
  const landed = (poolGrowth > 0n ? poolGrowth : 0n) + othersGrowth
  const distributes =
    outflow > 0n && 2n * landed >= outflow && (2n * poolGrowth >= outflow || othersGrew >= STRUCTURE_MIN_RECEIVERS)
  const distribution = distributes ? bps(outflow, f.supply) : 0n

  // Accumulation.
  const accumulation = bps(sum(f.topNow.map((b) => b.now)) - sum(f.topNow.map((b) => b.then)), f.supply)

  // Rotation.
  const { exited, newHolders } = f
  const comparable = exited.then > 0n && 2n * newHolders.now >= exited.then && newHolders.now <= 2n * exited.then
  const rotates = exited.count >= STRUCTURE_MIN_ROTATING && newHolders.count >= STRUCTURE_MIN_ROTATING && comparable
  const rotation = rotates ? bps(newHolders.now < exited.then ? newHolders.now : exited.then, f.supply) : 0n

  const strengths = {
    distribution: distribution >= STRUCTURE_MIN_BPS ? distribution : 0n,
    accumulation: accumulation >= STRUCTURE_MIN_BPS ? accumulation : 0n,
    rotation: rotation >= STRUCTURE_MIN_BPS ? rotation : 0n,
  }
  let verdict: StructureVerdict = 'insufficient_data'
  let best = 0n
  for (const k of ['distribution', 'accumulation', 'rotation'] as const) {
    if (strengths[k] > best) {
      best = strengths[k]
      verdict = k
    }
  }
  return { verdict, strengths }
}

/** The verdict rules in words, for the OpenAPI description. */
export const STRUCTURE_VERDICT_RULES =
  `insufficient_data: fewer than ${STRUCTURE_MIN_HOLDERS} holders, less than 24 h of chain history before the window end, or no rule below qualifies. ` +
  `distribution: the ${STRUCTURE_LARGE_HOLDERS} largest holders at the baseline plus every insider lost, net, at least ${Number(STRUCTURE_MIN_BPS) / 100}% of supply, at least half of it landed in pools or on other wallets, and either pools took half or at least ${STRUCTURE_MIN_RECEIVERS} other wallets grew. ` +
  `accumulation: the ${STRUCTURE_LARGE_HOLDERS} largest holders at the window end grew, together, by at least ${Number(STRUCTURE_MIN_BPS) / 100}% of supply. ` +
  `rotation: at least ${STRUCTURE_MIN_ROTATING} wallets exited and at least ${STRUCTURE_MIN_ROTATING} new holders appeared, the new holders' balance is between half and twice what the exited wallets held, and the smaller of the two is at least ${Number(STRUCTURE_MIN_BPS) / 100}% of supply. ` +
  'When several qualify, the largest share of supply wins (ties: distribution, accumulation, rotation). Shares are of the supply at the window end (pools included).'
