import { describe, expect, it } from 'vitest'
import { equityCurve, forwardReturn, LATE_AFTER_SECONDS, median, medianOfMiddles, type RecordedMark, type RecordedVerdict } from '../../products/verdict/basket.ts'
import { basketOf, proofOf } from '../setup/outcomes-reference.ts'

const v = (token: string, signal: string, extra: Partial<RecordedVerdict> = {}): RecordedVerdict => ({
  token, symbol: token.toUpperCase(), signal, confidence: 0.8, launchedAt: 1000, takenBlock: 10, takenAt: 1900, lagSeconds: 0, entryPrice: '0.00001', entryBlock: 9, ...extra,
})
const m = (token: string, horizon: RecordedMark['horizon'], ret: number | null, extra: Partial<RecordedMark> = {}): RecordedMark => ({
  token, horizon, markedBlock: 100, markedAt: 5000, price: '0.00002', return: ret, isReal: true, dead: null, ...extra,
})

describe('basket and proof from recorded verdicts and marks', () => {
  it('forward return from raw amounts, exact ratios', () => {
    expect(forwardReturn({ weth: 10n, token: 1_000_000n }, { weth: 20n, token: 1_000_000n })).toBe(1)
    expect(forwardReturn({ weth: 4n, token: 2n }, { weth: 1n, token: 1n })).toBe(-0.5)
    expect(forwardReturn(null, { weth: 1n, token: 1n })).toBeNull()
    expect(forwardReturn({ weth: 1n, token: 1n }, { weth: 1n, token: 0n })).toBeNull()
  })

  it('median of even and odd counts', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 2, 3])).toBe(2.5)
    expect(median([])).toBeNull()
    // From the two middle values, as SQL's quantileExactLow/High(0.5) give them.
    expect(medianOfMiddles(2, 3)).toBe(2.5)
    expect(medianOfMiddles(0.1234564, 0.1234564)).toBe(0.123456)
  })

  it('members are on-time low_risk verdicts with a price; late and unpriced ones are counted apart', () => {
    const verdicts = [v('a', 'low_risk'), v('b', 'low_risk', { lagSeconds: LATE_AFTER_SECONDS + 1 }), v('c', 'low_risk', { entryPrice: null }), v('d', 'high_risk')]
    const b = basketOf(verdicts, [m('a', '1h', 0.5), m('a', '24h', -0.25), m('d', '24h', 3)])
    expect(b.members.map((x) => x.token)).toEqual(['a'])
    expect(b).toMatchObject({ late: 1, unpriced: 1 })
    expect(b.perHorizon).toEqual({ '1h': { marked: 1, hit_rate: 1, median_return: 0.5 }, '24h': { marked: 1, hit_rate: 0, median_return: -0.25 }, '7d': { marked: 0, hit_rate: null, median_return: null } })
    expect(b.equity).toEqual([{ at: 5000, block: 100, closed: 1, equity: 0.75, cumulative_return: -0.25 }])
  })

  it('the equity curve adds each 24 h close in chain-time order', () => {
    const curve = equityCurve([{ markedAt: 20, markedBlock: 2, return: 1 }, { markedAt: 10, markedBlock: 1, return: -0.5 }])
    expect(curve.map((p) => [p.at, p.equity, p.cumulative_return])).toEqual([[10, 0.5, -0.5], [20, 2.5, 0.25]])
  })

  it('proof per signal: shares at the 7 d mark, median 24 h return, late verdicts left out', () => {
    const verdicts = [v('a', 'low_risk'), v('b', 'low_risk'), v('c', 'avoid'), v('e', 'avoid', { lagSeconds: 3600 })]
    const marks = [m('a', '7d', 0, { isReal: true }), m('b', '7d', null, { isReal: false, dead: 'idle_72h' }), m('a', '24h', 1), m('b', '24h', 0), m('c', '7d', null, { isReal: false, dead: 'liquidity_removed' })]
    const p = proofOf(verdicts, marks, ['low_risk', 'avoid', 'high_risk'])
    expect(p.late).toBe(1)
    expect(p.rows).toEqual([
      { signal: 'low_risk', tokens: 2, marked_7d: 2, became_real_share: 0.5, dead_within_7d_share: 0.5, marked_24h_with_return: 2, median_return_24h: 0.5 },
      { signal: 'avoid', tokens: 1, marked_7d: 1, became_real_share: 0, dead_within_7d_share: 1, marked_24h_with_return: 0, median_return_24h: null },
      { signal: 'high_risk', tokens: 0, marked_7d: 0, became_real_share: null, dead_within_7d_share: null, marked_24h_with_return: 0, median_return_24h: null },
    ])
  })
})
