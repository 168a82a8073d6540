/**
 * Deployer reputation, 0-100, from a deployer's measured track record. Published in the
 * OpenAPI description; a test holds it to hand-computed cases.
 *
 *   score = 40 × real_rate                          share of launches that became real
 *         + 20 × min(1, log10(1 + best_weth) / 3)   best token's WETH volume, full marks at 999 WETH
 *         + 20 × min(1, real / 5)                   depth: five real tokens earn full marks
 *         + 20 × (1 − dead_rate)                    survival
 *         − 15 if the insider-prep flag is set      supply sent to wallets before launch
 *   clamped to [0, 100] and rounded to an integer. A deployer with no launches has no score.
 */
export interface DeployerTrack {
  launched: number
  real: number
  dead: number
  /** WETH volume of the deployer's best token, in wei. */
  bestVolumeWei: bigint
  insiderPrep: boolean
}

export const SCORE_BANDS = [
  { min: 85, band: 'elite' },
  { min: 70, band: 'proven' },
  { min: 50, band: 'mixed' },
  { min: 30, band: 'weak' },
  { min: 0, band: 'poor' },
] as const

export type ScoreBand = (typeof SCORE_BANDS)[number]['band']

/** The band names from lowest to highest (the order the API's enums list them in). */
export const SCORE_BAND_NAMES = SCORE_BANDS.map((b) => b.band).reverse()

/** The lowest score of a band. */
export function bandMin(band: ScoreBand): number {
  return SCORE_BANDS.find((b) => b.band === band)!.min
}

/** A deployer is proven from this score on (the proven band and above). */
export const PROVEN_MIN_SCORE = bandMin('proven')

/** A whole number of WETH as a float (enough precision for a logarithm). */
function wethOf(wei: bigint): number {
  return Number(wei / 10n ** 12n) / 1e6
}

export function deployerScore(t: DeployerTrack): number | null {
  if (t.launched <= 0) return null
  const realRate = t.real / t.launched
  const deadRate = t.dead / t.launched
  const raw =
    40 * realRate +
    20 * Math.min(1, Math.log10(1 + wethOf(t.bestVolumeWei)) / 3) +
    20 * Math.min(1, t.real / 5) +
    20 * (1 - deadRate) -
    (t.insiderPrep ? 15 : 0)
  return Math.round(Math.min(100, Math.max(0, raw)))
}

export function scoreBand(score: number | null): ScoreBand | null {
  if (score === null) return null
  return SCORE_BANDS.find((b) => score >= b.min)!.band
}

/** Wallets that receiving supply from the deployer before launch makes an insider-prep launch. */
export const INSIDER_PREP_MIN_RECIPIENTS = 2
