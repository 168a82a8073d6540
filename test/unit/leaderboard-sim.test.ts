import { describe, expect, it } from 'vitest'
import { formatEther } from 'viem'
import { Leaderboard } from '../../products/wallet/leaderboard-claim.ts'
import { createChainSimulator, DEFAULT_START_TIME } from '../../pipelines/sim/chain-sim.ts'
import { createLeaderboardSimulator } from '../../pipelines/sim/leaderboard-sim.ts'
import { createPriceSimulator } from '../../pipelines/sim/price-sim.ts'

/** Blocks from 20 minutes before a UTC midnight to 10 minutes after: one leaderboard. */
function run(seed: number) {
  const start = DEFAULT_START_TIME - 1200
  const sim = createChainSimulator({ chainId: 4663, seed, startTime: start, blockTimeSec: 2 })
  const prices = createPriceSimulator({ seed, pair: 'ETH/USD', startPrice: 3000, startMinute: start })
  const board = createLeaderboardSimulator({ seed, prices })
  const boards = []
  const net = new Map<string, bigint>()
  for (let i = 0; i < 900; i++) {
    const b = sim.nextBlock()
    const out = board.observe(b.timestamp, sim.trades)
    if (out) boards.push(out)
    if (b.timestamp < DEFAULT_START_TIME) for (const t of sim.trades) net.set(t.trader.toLowerCase(), (net.get(t.trader.toLowerCase()) ?? 0n) + t.wethReceived - t.wethSpent)
  }
  return { boards, net, eth: Number(prices.candleAt(DEFAULT_START_TIME - 60).close) }
}

describe('the simulated leaderboard (leaderboard.claims)', () => {
  it('publishes one valid leaderboard per midnight, of wallets that traded, some claims accurate and some inflated', () => {
    const { boards, net, eth } = run(7)
    expect(boards).toHaveLength(1)
    const claims = boards[0]!
    expect(Leaderboard.safeParse(claims).success).toBe(true)
    expect(claims.length).toBeGreaterThan(20)
    expect(claims.length).toBeLessThanOrEqual(100)
    expect(claims[0]!.claimed_at).toBe(new Date(DEFAULT_START_TIME * 1000).toISOString().replace(/\.000Z$/, 'Z'))
    let accurate = 0
    let inflated = 0
    for (const c of claims) {
      expect(net.has(c.wallet), c.wallet).toBe(true)
      const measured = Math.round(Number(formatEther(net.get(c.wallet)!)) * eth * 100) / 100
      if (c.claimed_pnl_usd_30d === measured) accurate++
      else if (c.claimed_pnl_usd_30d > measured) inflated++
    }
    expect(accurate).toBeGreaterThan(5)
    expect(inflated).toBeGreaterThan(5)
    expect(accurate + inflated).toBe(claims.length)
  })

  it('is deterministic', () => {
    expect(run(7).boards).toEqual(run(7).boards)
  })
})
