import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

/**
 * How many wallets of the tracked roster (the latest leaderboard, migration 021) have traded each
 * of some tokens: counts, never who, and the roster's size (0: none ingested). One statement:
 * the tokens' traders read by key (token_trader_first, ordered by chain and token) against the
 * roster's at most 100 wallets. Used by /agent/features.
 */
export async function rosterWalletsTradingTokens(
  ch: ClickHouseClient,
  chainId: number,
  tokens: string[],
): Promise<{ roster: number; traded: Map<string, number> }> {
  const keys = tokens.map((t) => t.toLowerCase())
  const [r] = await queryRows<{ roster: string; traded: Array<[string, string]> }>(
    ch,
    `WITH roster AS (
       SELECT DISTINCT wallet FROM leaderboard_claims
       WHERE (claimed_at, source) IN (SELECT claimed_at, source FROM leaderboard_claims ORDER BY claimed_at DESC, source DESC LIMIT 1))
     SELECT (SELECT count() FROM roster) AS roster,
            (SELECT groupArray((token, toString(n))) FROM (
               SELECT token, uniqExact(trader) AS n FROM token_trader_first
               WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} AND trader IN (SELECT wallet FROM roster)
               GROUP BY token)) AS traded`,
    { chain: chainId, tokens: keys },
  )
  const counted = new Map((r?.traded ?? []).map(([token, n]) => [token, Number(n)]))
  return { roster: Number(r?.roster ?? 0), traded: new Map(tokens.map((t, i) => [t, counted.get(keys[i]!) ?? 0])) }
}

/** The same for one token. */
export async function rosterWalletsTradingToken(ch: ClickHouseClient, chainId: number, token: string): Promise<{ traded: number; roster: number }> {
  const r = await rosterWalletsTradingTokens(ch, chainId, [token])
  return { traded: r.traded.get(token)!, roster: r.roster }
}
