/**
 * The pulse of a token (GET /pulse/{token}): its short-horizon state over the last hour against
 * the hour before it, both on the chain clock, and a `signal` naming which of four states the
 * measured counts are in. A description of what was measured, not a forecast. The rule is
 * stated once in PULSE_RULES_MARKDOWN (published in the OpenAPI description) and implemented by
 * `pulseSignal`; a test holds it to each case.
 */
export const PULSE_SIGNALS = ['heating', 'steady', 'cooling', 'dormant'] as const
export type PulseSignal = (typeof PULSE_SIGNALS)[number]

export const PULSE_RULE_CODES = [
  'no_activity',
  'liquidity_pulled',
  'swaps_halved',
  'swaps_doubled',
  'voices_doubled',
  'within_bounds',
] as const
export type PulseRuleCode = (typeof PULSE_RULE_CODES)[number]

/** One window's counts (last hour or the hour before it). */
export interface PulseWindow {
  swaps: number
  traders: number
  mentions: number
  independentVoices: number
}

export interface PulseInputs {
  last: PulseWindow
  previous: PulseWindow
  /**
   * Liquidity removed net in the last hour as a share of the launch pool's liquidity at the
   * start of the hour (0 when liquidity was added or nothing changed; null without a pool).
   */
  liquidityRemovedShare: number | null
}

/** Swaps in the last hour from which a rise counts as heating. */
export const HEATING_MIN_SWAPS = 10
/** Independent voices in the last hour from which a rise of voices counts as heating. */
export const HEATING_MIN_VOICES = 3
/** Swaps in the previous hour from which a fall counts as cooling. */
export const COOLING_MIN_PREVIOUS_SWAPS = 4
/** Net liquidity removed in the last hour above which the token is cooling. */
export const COOLING_LIQUIDITY_SHARE = 0.5

/** The signal and the rule that decided it (the first rule that holds, in the order stated). */
export function pulseSignal(i: PulseInputs): { signal: PulseSignal; rule: PulseRuleCode } {
  const { last, previous } = i
  if (last.swaps === 0 && last.mentions === 0) return { signal: 'dormant', rule: 'no_activity' }
  if (i.liquidityRemovedShare !== null && i.liquidityRemovedShare > COOLING_LIQUIDITY_SHARE) return { signal: 'cooling', rule: 'liquidity_pulled' }
  if (previous.swaps >= COOLING_MIN_PREVIOUS_SWAPS && last.swaps * 2 <= previous.swaps) return { signal: 'cooling', rule: 'swaps_halved' }
  if (last.swaps >= HEATING_MIN_SWAPS && last.swaps >= 2 * previous.swaps && last.traders > previous.traders) return { signal: 'heating', rule: 'swaps_doubled' }
  if (last.independentVoices >= HEATING_MIN_VOICES && last.independentVoices >= 2 * previous.independentVoices && last.swaps >= previous.swaps && last.swaps > 0) {
    return { signal: 'heating', rule: 'voices_doubled' }
  }
  return { signal: 'steady', rule: 'within_bounds' }
}

/** last / previous, rounded to 4 decimals; null when the previous count is 0. */
export function ratio(last: number, previous: number): number | null {
  return previous === 0 ? null : Math.round((last / previous) * 10_000) / 10_000
}

export const PULSE_RULES_MARKDOWN = `
Pulse rules (measured counts, not a forecast). Windows: the last hour is the 60 chain-clock minutes ending with the minute of
the block the answer is measured through (\`window.last\`); the previous hour is the 60 minutes before it (\`window.previous\`).
Swaps, traders and liquidity are counted from the chain by block time; mentions by their posting time against the same minutes.
The first rule that holds decides \`signal\` (its code is \`rule\`):
1. \`dormant\` / \`no_activity\`: no swap and no mention in the last hour.
2. \`cooling\` / \`liquidity_pulled\`: more than ${COOLING_LIQUIDITY_SHARE * 100}% of the launch pool's liquidity at the start of the last hour was removed (net) during it.
3. \`cooling\` / \`swaps_halved\`: at least ${COOLING_MIN_PREVIOUS_SWAPS} swaps in the previous hour and at most half as many in the last hour.
4. \`heating\` / \`swaps_doubled\`: at least ${HEATING_MIN_SWAPS} swaps in the last hour, at least twice the previous hour's, and more distinct traders than in the previous hour.
5. \`heating\` / \`voices_doubled\`: at least ${HEATING_MIN_VOICES} independent voices (a mutual-follow cluster is one voice) in the last hour, at least twice the previous hour's, with swaps not fewer than in the previous hour (and some).
6. \`steady\` / \`within_bounds\`: otherwise.
`.trim()
