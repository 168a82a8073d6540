import { formatEther } from 'viem'
import type { LeaderboardClaim } from '../../products/wallet/leaderboard-claim.ts'
import { ROSTER_MAX } from '../../products/wallet/leaderboard-claim.ts'
import type { PriceSimulator } from './price-sim.ts'
import { seedToU32 } from './prng.ts'
import type { SimTrade } from './world.ts'

const DAY = 86_400
const WINDOW_DAYS = 30

/**
 * A third-party leaderboard over the simulated chain (issue 12): at each UTC midnight, the (at
 * most 100) wallets with the most swaps in the 30 days before it, each with a claimed 30-day PnL.
 * The claim is the wallet's WETH received minus WETH spent over the window at that minute's
 * ETH/USD close (close to the wallet's realized result when it ends flat); about a third of the
 * wallets, chosen by a hash of (seed, wallet), claim an inflated figure instead. Deterministic: the
 * same seed and blocks give the same leaderboards. It sees the blocks the simulator publishes
 * (after a restart, from the resumed block on).
 */
export interface LeaderboardSimulator {
  /** Feed one published block; answers a leaderboard when the block crossed a midnight. */
  observe(blockTime: number, trades: readonly SimTrade[]): LeaderboardClaim[] | null
}

export function createLeaderboardSimulator(opts: { seed: number | string; prices: PriceSimulator; source?: string }): LeaderboardSimulator {
  const source = opts.source ?? 'sim-dex-board'
  const salt = seedToU32(`leaderboard-sim/${opts.seed}`)
  /** Per wallet: swaps and net WETH (received − spent) per day index. */
  const days = new Map<string, Map<number, { swaps: number; net: bigint }>>()
  let lastDay: number | null = null

  function board(day: number): LeaderboardClaim[] {
    const claimedAt = day * DAY
    const from = day - WINDOW_DAYS
    const ranked: Array<{ wallet: string; swaps: number; net: bigint }> = []
    for (const [wallet, byDay] of days) {
      let swaps = 0
      let net = 0n
      for (const [d, v] of byDay) {
        if (d < from) byDay.delete(d)
        else if (d < day) {
          swaps += v.swaps
          net += v.net
        }
      }
      if (byDay.size === 0) days.delete(wallet)
      if (swaps > 0) ranked.push({ wallet, swaps, net })
    }
    ranked.sort((a, b) => b.swaps - a.swaps || (a.wallet < b.wallet ? -1 : 1))
    const eth = Number(opts.prices.candleAt(claimedAt - 60).close)
    const claims = ranked.slice(0, ROSTER_MAX).map((r) => {
      const measured = Number(formatEther(r.net)) * eth
      const h = seedToU32(`${salt}/${r.wallet}`)
      const inflated = h % 3 === 0
      const usd = inflated ? Math.abs(measured) * (2 + (h % 4)) + 1_000 * (1 + (h % 10)) : measured
      return { wallet: r.wallet, usd: Math.round(usd * 100) / 100 }
    })
    claims.sort((a, b) => b.usd - a.usd || (a.wallet < b.wallet ? -1 : 1))
    const at = new Date(claimedAt * 1000).toISOString().replace(/\.000Z$/, 'Z')
    return claims.map((c, i) => ({ source, wallet: c.wallet, rank: i + 1, claimed_pnl_usd_30d: c.usd, claimed_at: at }))
  }

  return {
    observe(blockTime, trades) {
      const day = Math.floor(blockTime / DAY)
      const crossed = lastDay !== null && day > lastDay
      lastDay = day
      const out = crossed ? board(day) : null
      for (const t of trades) {
        const w = t.trader.toLowerCase()
        if (!days.has(w)) days.set(w, new Map())
        const m = days.get(w)!
        const v = m.get(day) ?? { swaps: 0, net: 0n }
        v.swaps++
        v.net += t.wethReceived - t.wethSpent
        m.set(day, v)
      }
      return out && out.length > 0 ? out : null
    },
  }
}
