import { describe, expect, it } from 'vitest'
import { verdict, VERDICT_SIGNALS, type VerdictInputs, type VerdictReasonCode } from '../../products/verdict/verdict.ts'

const WETH = 10n ** 18n

/** A real, live token of a deployer with a mixed record and five other launches: low_risk. */
function base(over: Partial<VerdictInputs> = {}): VerdictInputs {
  return {
    launched: true,
    swaps: 120,
    traders: 40,
    wethVolumeWei: 5n * WETH,
    realBlock: 1234,
    dead: null,
    lastActivityAt: '2026-01-01T00:00:00Z',
    liquidityAdded: 1_000_000n,
    liquidityRemoved: 0n,
    insiderPrep: false,
    deployer: { score: 60, band: 'mixed', otherLaunched: 5, otherDead: 1, otherInsiderPrep: false },
    ...over,
  }
}

const codes = (i: VerdictInputs) => verdict(i).reasons.map((r) => r.code)

describe('verdict()', () => {
  it('verdict() is low_risk with full confidence for a real token of a deployer with a mixed-or-better record', () => {
    const v = verdict(base())
    expect(v.signal).toBe('low_risk')
    expect(v.confidence).toBe(1)
    expect(v.reasons.map((r) => r.code).sort()).toEqual(['deployer_track_record', 'real'])
    expect(v.reasons.find((r) => r.code === 'real')!.measured).toEqual({ real_block: 1234 })
  })

  it.each<[string, Partial<VerdictInputs>, string, VerdictReasonCode]>([
    ['liquidity pulled', { dead: 'liquidity_removed', liquidityRemoved: 950_000n }, 'avoid', 'dead_liquidity_removed'],
    ['idle 72 h', { dead: 'idle_72h' }, 'avoid', 'dead_idle_72h'],
    ['no WETH pool', { launched: false, swaps: 0, traders: 0, realBlock: null, liquidityAdded: 0n }, 'high_risk', 'no_weth_pool'],
    ['insider prep on this launch', { insiderPrep: true }, 'high_risk', 'insider_prep'],
    ['more than half the liquidity removed', { liquidityRemoved: 500_001n }, 'high_risk', 'liquidity_partly_removed'],
    ['poor deployer with a dead launch', { deployer: { score: 20, band: 'poor', otherLaunched: 3, otherDead: 1, otherInsiderPrep: false } }, 'high_risk', 'deployer_poor_with_dead'],
    ['not real', { realBlock: null, swaps: 10, traders: 5, wethVolumeWei: WETH / 2n }, 'moderate_risk', 'not_real'],
    ['deployer not observed', { deployer: null }, 'moderate_risk', 'deployer_unknown'],
    ['first launch of the deployer', { deployer: { score: 80, band: 'proven', otherLaunched: 0, otherDead: 0, otherInsiderPrep: false } }, 'moderate_risk', 'deployer_no_other_launches'],
    ['weak deployer', { deployer: { score: 40, band: 'weak', otherLaunched: 4, otherDead: 0, otherInsiderPrep: false } }, 'moderate_risk', 'deployer_weak'],
    ['poor deployer without dead launches', { deployer: { score: 25, band: 'poor', otherLaunched: 2, otherDead: 0, otherInsiderPrep: false } }, 'moderate_risk', 'deployer_weak'],
    ['insider prep on another launch', { deployer: { score: 60, band: 'mixed', otherLaunched: 3, otherDead: 0, otherInsiderPrep: true } }, 'moderate_risk', 'deployer_insider_prep'],
  ])('verdict() for %s is %s with reason %s', (_, over, signal, code) => {
    const v = verdict(base(over))
    expect(v.signal).toBe(signal)
    expect(v.reasons.map((r) => r.code)).toContain(code)
    expect(v.reasons.find((r) => r.code === code)!.signal).toBe(signal)
  })

  it('verdict() takes the most severe signal among the rules that hold, and lists each of them', () => {
    const v = verdict(base({ dead: 'liquidity_removed', liquidityRemoved: 1_000_000n, insiderPrep: true, realBlock: null, swaps: 30 }))
    expect(v.signal).toBe('avoid')
    expect(v.reasons.map((r) => r.code).sort()).toEqual(['dead_liquidity_removed', 'deployer_track_record', 'insider_prep', 'not_real'])
    expect(v.reasons.find((r) => r.code === 'dead_liquidity_removed')!.measured).toEqual({ removed_share: 1 })
    expect(verdict(base({ insiderPrep: true, realBlock: null })).signal).toBe('high_risk')
  })

  it('verdict() treats exactly half the liquidity removed as not a partial pull, one unit more as one', () => {
    expect(codes(base({ liquidityRemoved: 500_000n }))).not.toContain('liquidity_partly_removed')
    expect(verdict(base({ liquidityRemoved: 500_000n })).signal).toBe('low_risk')
    const v = verdict(base({ liquidityRemoved: 500_001n }))
    expect(v.reasons.find((r) => r.code === 'liquidity_partly_removed')!.measured).toEqual({ removed_share: 0.5 })
    // a pull past 90% is reported as the dead token it makes, not as a partial pull too
    expect(codes(base({ dead: 'liquidity_removed', liquidityRemoved: 900_001n }))).not.toContain('liquidity_partly_removed')
  })

  it('verdict() counts only other launches of the deployer: band poor without a dead one is not high_risk', () => {
    expect(verdict(base({ deployer: { score: 10, band: 'poor', otherLaunched: 2, otherDead: 0, otherInsiderPrep: false } })).signal).toBe('moderate_risk')
    expect(verdict(base({ deployer: { score: 10, band: 'poor', otherLaunched: 2, otherDead: 1, otherInsiderPrep: false } })).signal).toBe('high_risk')
    // a weak (not poor) deployer with dead launches stays moderate
    expect(verdict(base({ deployer: { score: 30, band: 'weak', otherLaunched: 2, otherDead: 2, otherInsiderPrep: false } })).signal).toBe('moderate_risk')
  })

  it('verdict() gives low_risk at the band boundary mixed and not at weak', () => {
    const mixed = verdict(base({ deployer: { score: 50, band: 'mixed', otherLaunched: 1, otherDead: 0, otherInsiderPrep: false } }))
    expect(mixed.signal).toBe('low_risk')
    const weak = verdict(base({ deployer: { score: 49, band: 'weak', otherLaunched: 1, otherDead: 0, otherInsiderPrep: false } }))
    expect(weak.signal).toBe('moderate_risk')
    expect(weak.reasons.find((r) => r.code === 'deployer_weak')!.measured).toEqual({ score: 49, band: 'weak' })
  })

  it('verdict() reports the measured values of not_real with wei as a decimal string', () => {
    const v = verdict(base({ realBlock: null, swaps: 49, traders: 19, wethVolumeWei: 10n ** 30n + 1n }))
    expect(v.reasons.find((r) => r.code === 'not_real')!.measured).toEqual({ swaps: 49, traders: 19, weth_volume_wei: '1000000000000000000000000000001' })
    expect(codes(base({ realBlock: null }))).not.toContain('real')
  })

  it('verdict() confidence grows with swaps, traders and the deployer\'s other launches', () => {
    const none = verdict(base({ launched: false, swaps: 0, traders: 0, realBlock: null, liquidityAdded: 0n, deployer: null }))
    expect(none.confidence).toBe(0)
    // 0.6 × (25/50 + 10/20)/2 + 0.4 × 2/5 = 0.3 + 0.16
    expect(verdict(base({ swaps: 25, traders: 10, realBlock: null, deployer: { score: 60, band: 'mixed', otherLaunched: 2, otherDead: 0, otherInsiderPrep: false } })).confidence).toBe(0.46)
    // evidence is capped: more than the thresholds adds nothing
    expect(verdict(base({ swaps: 5000, traders: 900, deployer: { score: 60, band: 'mixed', otherLaunched: 50, otherDead: 0, otherInsiderPrep: false } })).confidence).toBe(1)
    let previous = -1
    for (const swaps of [0, 10, 25, 49, 50]) {
      const c = verdict(base({ swaps, traders: 0, realBlock: null, deployer: null })).confidence
      expect(c).toBeGreaterThan(previous)
      previous = c
    }
  })

  it('verdict() confidence is at least 0.9 for a dead token, whatever else is measured', () => {
    expect(verdict(base({ dead: 'idle_72h', swaps: 2, traders: 1, realBlock: null, deployer: null })).confidence).toBe(0.9)
    expect(verdict(base({ dead: 'liquidity_removed', liquidityRemoved: 1_000_000n, swaps: 3, traders: 2, realBlock: null })).confidence).toBeGreaterThanOrEqual(0.9)
  })

  it('verdict() confidence stays in [0,1] and the signal in the four values for any inputs', () => {
    const bands = [null, 'poor', 'weak', 'mixed', 'proven', 'elite'] as const
    for (let k = 0; k < 500; k++) {
      const r = (n: number) => Math.floor(Math.abs(Math.sin(k * 12.9898 + n * 78.233)) * 1e6) % 1000
      const added = BigInt(r(1))
      const v = verdict({
        launched: r(2) % 5 !== 0,
        swaps: r(3) * 3,
        traders: r(4),
        wethVolumeWei: BigInt(r(5)) * WETH,
        realBlock: r(6) % 2 ? r(7) : null,
        dead: (['liquidity_removed', 'idle_72h', null] as const)[r(8) % 3]!,
        lastActivityAt: null,
        liquidityAdded: added,
        liquidityRemoved: BigInt(r(9)) % (added + 1n),
        insiderPrep: r(10) % 4 === 0,
        deployer: r(11) % 6 === 0 ? null : { score: r(12) % 101, band: bands[r(13) % 6]!, otherLaunched: r(14) % 12, otherDead: r(15) % 3, otherInsiderPrep: r(16) % 5 === 0 },
      })
      expect(v.confidence).toBeGreaterThanOrEqual(0)
      expect(v.confidence).toBeLessThanOrEqual(1)
      expect(VERDICT_SIGNALS).toContain(v.signal)
      expect(v.reasons.length).toBeGreaterThan(0)
      expect(v.reasons.some((x) => x.signal === v.signal)).toBe(true)
    }
  })
})

describe('verdict() with every signal (issue 13)', () => {
  const signals = (over: Partial<NonNullable<VerdictInputs['signals']>> = {}): NonNullable<VerdictInputs['signals']> => ({
    lp: { providers: 1, deployerShare: 1, insiderShare: 0 },
    insiderShareNow: 0,
    measuredCallers: { count: 0, bestGrade: null },
    structure: null,
    smartHolders: null,
    ...over,
  })

  it('a clean launch stays low_risk: the deployer holding its own pool is not a risk by itself', () => {
    expect(verdict(base({ signals: signals() })).signal).toBe('low_risk')
  })

  it.each<[string, Partial<NonNullable<VerdictInputs['signals']>>, string, VerdictReasonCode, Record<string, unknown>]>([
    ['insiders can pull more than half the liquidity', { lp: { providers: 2, deployerShare: 0.4, insiderShare: 0.6 } }, 'high_risk', 'lp_held_by_insiders', { insider_lp_share: 0.6, deployer_lp_share: 0.4, providers: 2 }],
    ['the structure verdict is distribution', { structure: 'distribution' }, 'high_risk', 'structure_distribution', { structure: 'distribution' }],
    ['insiders hold 10% of the supply now', { insiderShareNow: 0.1 }, 'moderate_risk', 'insiders_hold_supply', { insider_share_now: 0.1 }],
  ])('%s', (_, over, signal, code, measured) => {
    const v = verdict(base({ signals: signals(over) }))
    expect(v.signal).toBe(signal)
    expect(v.reasons.find((r) => r.code === code)!.measured).toEqual(measured)
  })

  it('boundaries: half the LP held by insiders, 9.99% of the supply, other structure verdicts do not move the signal', () => {
    for (const over of [{ lp: { providers: 2, deployerShare: 0.5, insiderShare: 0.5 } }, { insiderShareNow: 0.0999 }, { structure: 'rotation' as const }, { structure: 'accumulation' as const }]) {
      expect(verdict(base({ signals: signals(over) })).signal).toBe('low_risk')
    }
  })

  it('measured callers graded A or B and smart holders are shown as low_risk evidence, never overriding a risk', () => {
    const v = verdict(base({ signals: signals({ measuredCallers: { count: 2, bestGrade: 'B' }, smartHolders: 3 }) }))
    expect(v.reasons.filter((r) => r.signal === 'low_risk').map((r) => r.code)).toEqual(expect.arrayContaining(['measured_callers', 'smart_holders']))
    expect(v.reasons.find((r) => r.code === 'measured_callers')!.measured).toEqual({ measured_callers: 2, best_grade: 'B' })
    expect(codes(base({ signals: signals({ measuredCallers: { count: 2, bestGrade: 'C' } }) }))).not.toContain('measured_callers')
    const risky = verdict(base({ insiderPrep: true, signals: signals({ measuredCallers: { count: 5, bestGrade: 'A' }, smartHolders: 9 }) }))
    expect(risky.signal).toBe('high_risk')
  })
})
