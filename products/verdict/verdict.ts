import { INSIDER_PREP_MIN_RECIPIENTS, type ScoreBand } from '../token/deployer-score.ts'
import { REAL_DEAD_IN_WORDS as W, REAL_TOKEN_THRESHOLDS } from '../token/real-token.ts'
import type { DeadReason } from '../token/token-status.ts'

/**
 * The buy-risk verdict of a token (DESIGN §7: `low_risk`, `moderate_risk`, `high_risk`,
 * `avoid`; confidence in [0, 1]), from inputs the service already measures. It states which
 * measured facts hold, never a prediction or an expected return. Published in the OpenAPI
 * description of /verdict and /report (VERDICT_RULES_MARKDOWN); a test holds it to each rule.
 *
 * The rules and the confidence formula are stated once, in VERDICT_RULES_MARKDOWN below (which
 * the OpenAPI description publishes); `reasonsOf` and `confidenceOf` implement them.
 */
export const VERDICT_SIGNALS = ['low_risk', 'moderate_risk', 'high_risk', 'avoid'] as const
export type VerdictSignal = (typeof VERDICT_SIGNALS)[number]

export const VERDICT_REASON_CODES = [
  'dead_liquidity_removed',
  'dead_idle_72h',
  'no_weth_pool',
  'insider_prep',
  'liquidity_partly_removed',
  'deployer_poor_with_dead',
  'not_real',
  'deployer_unknown',
  'deployer_no_other_launches',
  'deployer_weak',
  'deployer_insider_prep',
  'real',
  'deployer_track_record',
  'not_tracked',
  'lp_held_by_insiders',
  'insiders_hold_supply',
  'structure_distribution',
  'measured_callers',
  'smart_holders',
] as const
export type VerdictReasonCode = (typeof VERDICT_REASON_CODES)[number]

/** A measured value a rule was decided on: numbers, wei as decimal strings, flags, times. */
export type MeasuredValue = number | string | boolean | null

export interface VerdictReason {
  code: VerdictReasonCode
  /** The signal this rule places the token at (the verdict is the most severe one). */
  signal: VerdictSignal
  measured: Record<string, MeasuredValue>
}

export interface Verdict {
  signal: VerdictSignal
  confidence: number
  reasons: VerdictReason[]
}

/** The deployer's record as the verdict reads it; "other" launches exclude the token judged. */
export interface VerdictDeployer {
  score: number | null
  band: ScoreBand | null
  otherLaunched: number
  otherDead: number
  /** Insider prep on a launch of the deployer other than the token judged. */
  otherInsiderPrep: boolean
}

export interface VerdictInputs {
  /** The token has a WETH pool. */
  launched: boolean
  swaps: number
  traders: number
  wethVolumeWei: bigint
  realBlock: number | null
  dead: DeadReason | null
  /** Time of the last swap, or of the launch when it never traded (ISO). */
  lastActivityAt: string | null
  /** In the launch pool's own liquidity units. */
  liquidityAdded: bigint
  liquidityRemoved: bigint
  insiderPrep: boolean
  /** null when the token's contract creation was not observed. */
  deployer: VerdictDeployer | null
  /** The other signals; absent: none measured. */
  signals?: VerdictSignals
}

/**
 * The signals beyond the token and deployer records (issue 13), each null when it is not
 * measured for the token (or not available in this build: a seam reads null).
 */
export interface VerdictSignals {
  /** Who can pull the launch pool's liquidity: its providers' net liquidity by kind of holder. */
  lp: { providers: number; deployerShare: number; insiderShare: number } | null
  /** Insiders' (off-market recipients of the deployer before the first swap) share of the supply now. */
  insiderShareNow: number | null
  /** Measured callers (4+ graded calls) who called the token, and their best grade. */
  measuredCallers: { count: number; bestGrade: 'A' | 'B' | 'C' | 'D' | null } | null
  /** The holder-structure verdict over about 24 h. */
  structure: 'rotation' | 'distribution' | 'accumulation' | 'insufficient_data' | null
  /** Holders judged smart by their FIFO record. */
  smartHolders: number | null
}

/** Insiders' share of the launch pool's liquidity above which they can pull it: high risk. */
export const LP_INSIDER_SHARE = 0.5
/** Insiders' share of the supply at or above which the verdict is at least moderate risk. */
export const INSIDER_SUPPLY_SHARE = 0.1

/** Removed share above which a pull that leaves the token alive is still high risk. */
export const PARTIAL_PULL_SHARE = 0.5
/** Other launches at which the deployer evidence is complete. */
export const DEPLOYER_EVIDENCE_LAUNCHES = 5
/** Confidence floor for a dead token. */
export const DEAD_CONFIDENCE = 0.9

const SEVERITY: Record<VerdictSignal, number> = { low_risk: 0, moderate_risk: 1, high_risk: 2, avoid: 3 }

/** removed / added to 4 decimals (0 without liquidity). */
function removedShare(i: VerdictInputs): number {
  if (i.liquidityAdded <= 0n) return 0
  return Number((i.liquidityRemoved * 10_000n) / i.liquidityAdded) / 10_000
}

function reasonsOf(i: VerdictInputs): VerdictReason[] {
  const out: VerdictReason[] = []
  const add = (code: VerdictReasonCode, signal: VerdictSignal, measured: Record<string, MeasuredValue>) => out.push({ code, signal, measured })
  const share = removedShare(i)
  const d = i.deployer

  if (i.dead === 'liquidity_removed') add('dead_liquidity_removed', 'avoid', { removed_share: share })
  if (i.dead === 'idle_72h') add('dead_idle_72h', 'avoid', { last_activity_at: i.lastActivityAt })

  if (!i.launched) add('no_weth_pool', 'high_risk', { launched: false })
  if (i.insiderPrep) add('insider_prep', 'high_risk', { insider_prep: true })
  // Exact comparison in integers: removed / added > 0.5.
  if (i.dead !== 'liquidity_removed' && i.liquidityAdded > 0n && i.liquidityRemoved * 2n > i.liquidityAdded) {
    add('liquidity_partly_removed', 'high_risk', { removed_share: share })
  }
  if (d && d.band === 'poor' && d.otherDead >= 1) {
    add('deployer_poor_with_dead', 'high_risk', { score: d.score, band: d.band, other_launched: d.otherLaunched, other_dead: d.otherDead })
  }

  if (i.realBlock === null) add('not_real', 'moderate_risk', { swaps: i.swaps, traders: i.traders, weth_volume_wei: i.wethVolumeWei.toString() })
  if (!d) add('deployer_unknown', 'moderate_risk', { deployer: null })
  if (d && d.otherLaunched === 0) add('deployer_no_other_launches', 'moderate_risk', { other_launched: 0 })
  if (d && (d.band === 'poor' || d.band === 'weak')) add('deployer_weak', 'moderate_risk', { score: d.score, band: d.band })
  if (d && d.otherInsiderPrep) add('deployer_insider_prep', 'moderate_risk', { insider_prep: true })

  const x = i.signals
  if (x?.lp && x.lp.insiderShare > LP_INSIDER_SHARE) {
    add('lp_held_by_insiders', 'high_risk', { insider_lp_share: x.lp.insiderShare, deployer_lp_share: x.lp.deployerShare, providers: x.lp.providers })
  }
  if (x?.structure === 'distribution') add('structure_distribution', 'high_risk', { structure: x.structure })
  if (x?.insiderShareNow != null && x.insiderShareNow >= INSIDER_SUPPLY_SHARE) add('insiders_hold_supply', 'moderate_risk', { insider_share_now: x.insiderShareNow })

  if (i.realBlock !== null) add('real', 'low_risk', { real_block: i.realBlock })
  if (x?.measuredCallers && (x.measuredCallers.bestGrade === 'A' || x.measuredCallers.bestGrade === 'B')) {
    add('measured_callers', 'low_risk', { measured_callers: x.measuredCallers.count, best_grade: x.measuredCallers.bestGrade })
  }
  if (x?.smartHolders) add('smart_holders', 'low_risk', { smart_holders: x.smartHolders })
  if (d && d.otherLaunched > 0 && (d.band === 'mixed' || d.band === 'proven' || d.band === 'elite')) {
    add('deployer_track_record', 'low_risk', { score: d.score, band: d.band, other_launched: d.otherLaunched })
  }
  return out
}

/** How much is measured about the token and its deployer, in [0, 1]. */
function confidenceOf(i: VerdictInputs): number {
  const tokenEvidence = (Math.min(1, i.swaps / REAL_TOKEN_THRESHOLDS.minSwaps) + Math.min(1, i.traders / REAL_TOKEN_THRESHOLDS.minTraders)) / 2
  const deployerEvidence = Math.min(1, (i.deployer?.otherLaunched ?? 0) / DEPLOYER_EVIDENCE_LAUNCHES)
  let c = 0.6 * Math.max(0, tokenEvidence) + 0.4 * Math.max(0, deployerEvidence)
  if (i.dead) c = Math.max(c, DEAD_CONFIDENCE)
  return Math.round(Math.min(1, Math.max(0, c)) * 100) / 100
}

/** The verdict of one token from its measured inputs (rules above). */
export function verdict(i: VerdictInputs): Verdict {
  const reasons = reasonsOf(i)
  const signal = reasons.reduce<VerdictSignal>((worst, r) => (SEVERITY[r.signal] > SEVERITY[worst] ? r.signal : worst), 'low_risk')
  return { signal, confidence: confidenceOf(i), reasons }
}

/**
 * A token never seen on the tracked chain (no launch, pool or swap): high_risk with confidence 0,
 * since nothing about it is measured and an unknown contract is not a safe default.
 */
export function verdictOfUntracked(): Verdict {
  return { signal: 'high_risk', confidence: 0, reasons: [{ code: 'not_tracked', signal: 'high_risk', measured: { found: false } }] }
}

/** The rules as the OpenAPI description states them (kept beside the code they describe). */
export const VERDICT_RULES_MARKDOWN = `
Verdict rules (measured inputs, not predictions). Each rule that holds is listed in \`reasons\` as
\`{code, signal, measured}\` with the values it was decided on; \`signal\` is the most severe signal among them.
- \`avoid\`: \`dead_liquidity_removed\` (more than ${W.removedPercent}% of the launch pool's liquidity removed), \`dead_idle_72h\` (no swap for ${W.idleHours} h).
- \`high_risk\`: \`no_weth_pool\` (no WETH pool, no market measured), \`insider_prep\` (the deployer sent supply to ${INSIDER_PREP_MIN_RECIPIENTS}+ wallets
  before the pool existed), \`liquidity_partly_removed\` (more than ${PARTIAL_PULL_SHARE * 100}% and at most ${W.removedPercent}% removed), \`deployer_poor_with_dead\`
  (deployer band poor and at least one of its other launches dead), \`lp_held_by_insiders\` (insiders hold more than ${LP_INSIDER_SHARE * 100}% of the launch
  pool's remaining liquidity: they can pull it), \`structure_distribution\` (the holder-structure verdict is distribution).
- \`moderate_risk\`: \`not_real\` (not yet ${W.swaps} swaps, ${W.traders} traders and ${W.weth} WETH volume), \`deployer_unknown\` (contract creation not
  observed), \`deployer_no_other_launches\` (no track record), \`deployer_weak\` (band poor or weak), \`deployer_insider_prep\`
  (insider prep on another launch of the deployer), \`insiders_hold_supply\` (insiders hold ${INSIDER_SUPPLY_SHARE * 100}% or more of the supply now).
- \`low_risk\`: \`real\` (the token became real), \`deployer_track_record\` (band mixed or better, with other launches),
  \`measured_callers\` (a measured caller graded A or B called it), \`smart_holders\` (holders judged smart by their FIFO record).
  A token is low_risk only when no other rule holds.
- A token never seen on the tracked chain answers found:false with \`high_risk\`, confidence 0 and the one reason \`not_tracked\`.
Insiders are the wallets that received supply off-market from the deployer before the pool existed; the values each signal
was decided on are in \`data.signals\` (null: not measured for the token).
Confidence measures how much was measured, not how likely an outcome is: 0.6 × token evidence
((min(1, swaps/${W.swaps}) + min(1, traders/${W.traders})) / 2) + 0.4 × deployer evidence (min(1, other launches/${DEPLOYER_EVIDENCE_LAUNCHES})), at least ${DEAD_CONFIDENCE} for a
dead token, rounded to 2 decimals. Deployer "other launches" exclude the token judged.
`.trim()
