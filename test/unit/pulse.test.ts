import { describe, expect, it } from 'vitest'
import {
  COOLING_LIQUIDITY_SHARE, COOLING_MIN_PREVIOUS_SWAPS, HEATING_MIN_SWAPS, HEATING_MIN_VOICES, PULSE_RULES_MARKDOWN, pulseSignal, ratio, type PulseInputs, type PulseWindow,
} from '../../products/pulse/pulse.ts'

const win = (w: Partial<PulseWindow> = {}): PulseWindow => ({ swaps: 0, traders: 0, mentions: 0, independentVoices: 0, ...w })
const inputs = (last: Partial<PulseWindow>, previous: Partial<PulseWindow>, liquidityRemovedShare: number | null = 0): PulseInputs => ({ last: win(last), previous: win(previous), liquidityRemovedShare })

/** The pulse rule on constructed cases, one per rule and each boundary. */
describe('pulseSignal', () => {
  it('dormant: no swap and no mention in the last hour, whatever came before', () => {
    expect(pulseSignal(inputs({}, { swaps: 100, traders: 40 }))).toEqual({ signal: 'dormant', rule: 'no_activity' })
    expect(pulseSignal(inputs({ mentions: 1 }, {})).signal).not.toBe('dormant')
  })

  it('cooling: more than half the liquidity pulled in the last hour, even while swaps rise', () => {
    const rising = { swaps: 40, traders: 30 }
    expect(pulseSignal(inputs(rising, { swaps: 2, traders: 2 }, COOLING_LIQUIDITY_SHARE + 0.01))).toEqual({ signal: 'cooling', rule: 'liquidity_pulled' })
    expect(pulseSignal(inputs(rising, { swaps: 2, traders: 2 }, COOLING_LIQUIDITY_SHARE)).rule).toBe('swaps_doubled')
  })

  it('cooling: swaps halved from at least the minimum', () => {
    expect(pulseSignal(inputs({ swaps: 5, traders: 5 }, { swaps: 10, traders: 5 }))).toEqual({ signal: 'cooling', rule: 'swaps_halved' })
    expect(pulseSignal(inputs({ swaps: 6, traders: 5 }, { swaps: 10, traders: 5 })).signal).toBe('steady')
    expect(pulseSignal(inputs({ swaps: 1, traders: 1 }, { swaps: COOLING_MIN_PREVIOUS_SWAPS - 1, traders: 1 })).signal).toBe('steady')
  })

  it('heating: swaps at least doubled from the minimum, with more traders', () => {
    expect(pulseSignal(inputs({ swaps: HEATING_MIN_SWAPS, traders: 6 }, { swaps: 5, traders: 5 }))).toEqual({ signal: 'heating', rule: 'swaps_doubled' })
    expect(pulseSignal(inputs({ swaps: HEATING_MIN_SWAPS - 1, traders: 6 }, { swaps: 2, traders: 1 })).signal).toBe('steady')
    expect(pulseSignal(inputs({ swaps: 20, traders: 5 }, { swaps: 5, traders: 5 })).signal).toBe('steady')
    expect(pulseSignal(inputs({ swaps: 19, traders: 9 }, { swaps: 10, traders: 5 })).signal).toBe('steady')
  })

  it('heating: independent voices doubled with swaps holding', () => {
    expect(pulseSignal(inputs({ swaps: 3, traders: 3, mentions: 8, independentVoices: HEATING_MIN_VOICES }, { swaps: 3, traders: 3, independentVoices: 1 }))).toEqual({ signal: 'heating', rule: 'voices_doubled' })
    expect(pulseSignal(inputs({ swaps: 2, traders: 2, mentions: 8, independentVoices: 6 }, { swaps: 3, traders: 3, independentVoices: 1 })).signal).toBe('steady')
    expect(pulseSignal(inputs({ mentions: 8, independentVoices: 6 }, { independentVoices: 1 })).signal).toBe('steady')
  })

  it('ratio is null without a previous count; the rules are published', () => {
    expect(ratio(3, 0)).toBeNull()
    expect(ratio(20, 3)).toBe(6.6667)
    for (const code of ['no_activity', 'liquidity_pulled', 'swaps_halved', 'swaps_doubled', 'voices_doubled', 'within_bounds']) expect(PULSE_RULES_MARKDOWN).toContain(code)
  })
})
