import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

/**
 * Watched tokens across keys (`watchlists`, migration 011; one key's list is read in
 * products/watchlist/watchlist-table.ts). The table is customer data, at most WATCHLIST_LIMIT rows of
 * state per key, so reading it whole is bounded by the number of keys, never by the chain.
 */

/** Every watched token with the keys (hashes) watching it now. */
export async function watchersByToken(ch: ClickHouseClient, tokens?: string[]): Promise<Map<string, string[]>> {
  const rows = await queryRows<{ token: string; keys: string[] }>(
    ch,
    `SELECT token, groupArray(key_hash) AS keys FROM
       (SELECT key_hash, token, argMax(watched, version) AS w FROM watchlists ${tokens ? 'WHERE token IN {tokens:Array(String)}' : ''} GROUP BY key_hash, token)
     WHERE w = 1 GROUP BY token ORDER BY token`,
    tokens ? { tokens } : {},
  )
  return new Map(rows.map((r) => [r.token, [...r.keys].sort()]))
}

/** Whether this key watches this token now (one key's rows). */
export async function keyWatches(ch: ClickHouseClient, keyHash: string, token: string): Promise<boolean> {
  const [r] = await queryRows<{ w: number }>(
    ch,
    'SELECT argMax(watched, version) AS w FROM watchlists WHERE key_hash = {h:String} AND token = {t:String}',
    { h: keyHash, t: token },
  )
  return Number(r?.w ?? 0) === 1
}
