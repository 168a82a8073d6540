import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

/**
 * How many wallets of the tracked roster (the latest leaderboard, migration 021) have traded a
 * token: a count, never who. One keyed read of the token's traders (token_trader_first, ordered by
 * chain and token) against the roster's at most 100 wallets. Used by /agent/features.
 */
export async function rosterWalletsTradingToken(ch: ClickHouseClient, chainId: number, token: string): Promise<{ traded: number; roster: number }> {
  const [r] = await queryRows<{ traded: string; roster: string }>(
    ch,
    `WITH roster AS (
       SELECT DISTINCT wallet FROM leaderboard_claims
       WHERE (claimed_at, source) IN (SELECT claimed_at, source FROM leaderboard_claims ORDER BY claimed_at DESC, source DESC LIMIT 1))
     SELECT (SELECT uniqExact(trader) FROM token_trader_first
             WHERE chain_id = {chain:UInt32} AND token = {token:String} AND trader IN (SELECT wallet FROM roster)) AS traded,
            (SELECT count() FROM roster) AS roster`,
    { chain: chainId, token: token.toLowerCase() },
  )
  return { traded: Number(r?.traded ?? 0), roster: Number(r?.roster ?? 0) }
}
