import { z } from 'zod'
import { Leaderboard, ROSTER_MAX, type LeaderboardClaim } from './leaderboard-claim.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'

export const leaderboardClaimsEndpoint = defineEndpoint<Uses<'roster'>>()({
  method: 'POST',
  path: '/admin/leaderboard-claims',
  summary: "Load an operator's leaderboard (the tracked roster)",
  description: `Publishes a third-party leaderboard on the leaderboard.claims topic: 1 to ${ROSTER_MAX} claims {source, wallet, rank, claimed_pnl_usd_30d, claimed_at} sharing one source and claimed_at. Once ingested, the latest leaderboard (greatest claimed_at) is the tracked roster of /wallet-receipt. Same as \`svc roster import <file.json>\`.`,
  tags: ['admin'],
  body: z.object({ claims: Leaderboard }),
  // Up to ROSTER_MAX claims of a few hundred bytes each.
  bodyLimit: 256 * 1024,
  response: z.object({ published: z.number().int(), source: z.string(), claimed_at: z.string() }),
  access: { kind: 'admin' },
  async handler({ body, deps }) {
    await deps.roster.publish(body.claims)
    return { published: body.claims.length, source: body.claims[0]!.source, claimed_at: body.claims[0]!.claimed_at }
  },
})

declare module '../../core/endpoint/deps.ts' {
  interface ApiDeps {
    /** Publishes an operator's leaderboard (the roster) on leaderboard.claims. */
    roster: { publish(claims: LeaderboardClaim[]): Promise<void> }
  }
}
