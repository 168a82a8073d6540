import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { meetsRealThresholds, REAL_TOKEN_THRESHOLDS } from './real-token.ts'
import { sqlFile } from '../../sql/sql-file.ts'

/**
 * Record the block in which each of `tokens` became real, for those not real yet. Runs after a
 * restart or a reorg for the tokens of the blocks involved (a live batch decides it from the
 * totals its token records read: refreshTokenStates). Idempotent.
 *
 * A token turns real at the first block where its running totals meet every threshold, so one
 * that is not real yet and whose totals now meet them all turns real in the blocks just ingested,
 * and one whose totals fall short cannot have. The totals are a keyed read of token_activity; the
 * search for the block (recordTurnedReal) runs only for the tokens that pass, which most batches
 * have none of.
 */
export async function refreshTokenReal(ch: ClickHouseClient, chainId: number, tokens: Iterable<string>): Promise<void> {
  const list = [...new Set(tokens)]
  if (list.length === 0) return
  const totals = await queryRows<{ token: string; swaps: string; traders: string; weth_volume: string }>(
    ch,
    `SELECT token, sum(swaps) AS swaps, uniqExactMerge(traders) AS traders, toString(sum(weth_volume)) AS weth_volume FROM token_activity
     WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)}
       AND token NOT IN (SELECT token FROM token_real WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)})
     GROUP BY token`,
    { chain: chainId, tokens: list },
  )
  await recordTurnedReal(ch, chainId, totals.filter(meetsRealThresholds).map((t) => t.token))
}

/**
 * For `tokens`, not real yet and whose totals now meet the thresholds: the search for the block
 * each turned real in (a window over its per-block activity, costly to plan and to run), recorded
 * in token_real. Idempotent: the same block again, and token_real keeps one row per token.
 */
export async function recordTurnedReal(ch: ClickHouseClient, chainId: number, tokens: string[]): Promise<void> {
  if (tokens.length === 0) return
  await ch.command({
    query: sqlFile(new URL('./refresh-token-real.sql', import.meta.url)),
    query_params: {
      chain: chainId,
      tokens,
      min_swaps: REAL_TOKEN_THRESHOLDS.minSwaps,
      min_traders: REAL_TOKEN_THRESHOLDS.minTraders,
      min_volume: REAL_TOKEN_THRESHOLDS.minWethVolumeWei.toString(),
    },
  })
}
