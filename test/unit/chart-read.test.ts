import { describe, expect, it } from 'vitest'
import { identifyChart, readChart, type ChartCandidate } from '../../products/identify/chart-read.ts'

const token = (n: number) => `0x${n.toString(16).padStart(40, '0')}`
const candidates: ChartCandidate[] = [
  { token: token(1), symbol: 'LUDO', priceWeth: 0.000012, priceUsd: 0.036, swaps: 120 },
  { token: token(2), symbol: 'PEPE', priceWeth: 0.0004, priceUsd: 1.2, swaps: 40 },
  { token: token(3), symbol: 'PEPE', priceWeth: 0.00000002, priceUsd: 0.00006, swaps: 400 },
  { token: token(4), symbol: 'MOON', priceWeth: 0.0000125, priceUsd: 0.0375, swaps: 10 },
  { token: token(5), symbol: 'NOQT', priceWeth: null, priceUsd: null, swaps: 0 },
]
const lookup = {
  byAddress: (a: string) => candidates.find((c) => c.token === a),
  bySymbol: (s: string) => candidates.filter((c) => c.symbol.toLowerCase() === s.toLowerCase()),
  all: () => candidates,
}

describe('readChart()', () => {
  it('reads pair notation first, then cashtags, then capitalised words, skipping quote assets and timeframes', () => {
    const r = readChart('LUDO / WETH  1m  15M  VOL 12.5K\nwatch $moon and PEPE on the 4H\nUSDC ETH')
    expect(r.tickers).toEqual([
      { ticker: 'LUDO', via: 'pair' },
      { ticker: 'MOON', via: 'cashtag' },
      { ticker: 'PEPE', via: 'word' },
    ])
    expect(r.chainHint).toBeNull()
  })

  it('reads decimal prices and addresses, never a number inside an address', () => {
    const a = `0x${'ab'.repeat(20)}`
    const r = readChart(`price 0.00001234 $1.50 mcap 12000 ${a.toUpperCase().replace('0X', '0x')} 0.5%`)
    expect(r.prices).toEqual([0.00001234, 1.5])
    expect(r.addresses).toEqual([a])
  })

  it.each([
    ['BONK / SOL on Raydium', 'solana'],
    ['pump.fun chart', 'solana'],
    ['DEGEN/WETH Aerodrome', 'base'],
    ['CAKE PancakeSwap', 'bsc'],
    ['Arc testnet explorer', '5042'],
  ])('names the other chain of %s', (text, chain) => {
    expect(readChart(text).chainHint).toBe(chain)
  })
})

describe('identifyChart()', () => {
  it('a tracked contract address wins over everything', () => {
    const r = identifyChart(readChart(`PEPE/WETH ${token(4)} Raydium`), lookup)
    expect(r.match).toMatchObject({ token: token(4), method: 'address', confidence: 0.99 })
  })

  it('a chart of another chain is resolved there, never force-matched, even when the ticker exists here', () => {
    const r = identifyChart(readChart('LUDO / SOL  0.000012'), lookup)
    expect(r.match).toBeNull()
    expect(r.alternates).toEqual([])
    expect(r.crossChain).toEqual({ chain: 'solana', ticker: 'LUDO' })
  })

  it('a visible ticker wins over the price band', () => {
    // 0.0004 is PEPE #2's price, but the chart says LUDO
    const r = identifyChart(readChart('LUDO/WETH 0.0004'), lookup)
    expect(r.match).toMatchObject({ token: token(1), method: 'ticker', confidence: 0.9 })
    expect(r.alternates).toEqual([])
  })

  it('tokens sharing the ticker: the price band singles one out, otherwise the most active leads and they share', () => {
    const priced = identifyChart(readChart('$PEPE 0.00041'), lookup)
    expect(priced.match).toMatchObject({ token: token(2), method: 'ticker', confidence: 0.81 })
    expect(priced.alternates).toEqual([{ token: token(3), symbol: 'PEPE', method: 'ticker', confidence: 0.09 }])
    const unpriced = identifyChart(readChart('$PEPE'), lookup)
    expect(unpriced.match).toMatchObject({ token: token(3), confidence: 0.45 })
    expect(unpriced.alternates.map((a) => [a.token, a.confidence])).toEqual([[token(2), 0.45]])
  })

  it('without a ticker, the price band within 20%: closest first, confidence shared and below 0.6', () => {
    const r = identifyChart(readChart('price 0.0000121 (weth)'), lookup)
    expect(r.match).toMatchObject({ token: token(1), method: 'price_band' })
    expect(r.alternates.map((a) => a.token)).toEqual([token(4)])
    expect(r.match!.confidence).toBeLessThanOrEqual(0.3)
    expect(r.match!.confidence).toBeGreaterThan(r.alternates[0]!.confidence)
    // PEPE #2 at 0.0004: a read 0.00049 is 18% away (inside), 0.000507 is 21% away (outside)
    const onlyPepe2 = { ...lookup, all: () => [candidates[1]!] }
    expect(identifyChart(readChart('0.00049'), onlyPepe2).match).toMatchObject({ token: token(2) })
    expect(identifyChart(readChart('0.000507'), onlyPepe2).match).toBeNull()
  })

  it('nothing readable: no match', () => {
    expect(identifyChart(readChart('a a'), lookup)).toEqual({ match: null, alternates: [], crossChain: null })
  })
})
