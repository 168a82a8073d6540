import { z } from 'zod'

/**
 * One record per ranked wallet on `leaderboard.claims`: a third party's claim about a wallet's
 * 30-day PnL. A leaderboard is the claims sharing (source, claimed_at); the tracked roster is the
 * latest leaderboard's wallets (DESIGN §7), so one leaderboard holds at most ROSTER_MAX wallets.
 */
export const ROSTER_MAX = 100

export const LeaderboardClaim = z.object({
  source: z.string().min(1).max(64).regex(/^[\w.:\- ]+$/, 'expected letters, digits, spaces or . _ : -'),
  wallet: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x address of 40 hex characters').transform((s) => s.toLowerCase()),
  rank: z.number().int().min(1).max(ROSTER_MAX),
  claimed_pnl_usd_30d: z.number().finite().min(-1e15).max(1e15),
  /** ISO 8601 time the leaderboard was published: the end of its 30-day window. */
  claimed_at: z.iso.datetime({ offset: true }).transform((s) => new Date(s).toISOString().replace(/\.\d{3}Z$/, 'Z')),
})
export type LeaderboardClaim = z.infer<typeof LeaderboardClaim>

/**
 * A whole leaderboard as an operator publishes it: 1..100 claims sharing one source and one
 * claimed_at, each wallet and each rank once.
 */
export const Leaderboard = z
  .array(LeaderboardClaim)
  .min(1)
  .max(ROSTER_MAX, `at most ${ROSTER_MAX} claims: the roster is one leaderboard of at most ${ROSTER_MAX} wallets`)
  .superRefine((claims, ctx) => {
    const first = claims[0]
    if (!first) return
    if (claims.some((c) => c.source !== first.source || c.claimed_at !== first.claimed_at)) ctx.addIssue({ code: 'custom', message: 'every claim of a leaderboard has the same source and claimed_at' })
    if (new Set(claims.map((c) => c.wallet)).size !== claims.length) ctx.addIssue({ code: 'custom', message: 'a wallet appears twice' })
    if (new Set(claims.map((c) => c.rank)).size !== claims.length) ctx.addIssue({ code: 'custom', message: 'a rank appears twice' })
  })

/** The row a claim is stored as (leaderboard_claims). */
export function claimRow(c: LeaderboardClaim) {
  return { claimed_at: Math.floor(Date.parse(c.claimed_at) / 1000), source: c.source, wallet: c.wallet, rank: c.rank, claimed_pnl_usd_30d: c.claimed_pnl_usd_30d }
}
