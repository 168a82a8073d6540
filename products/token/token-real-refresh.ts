import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { REAL_TOKEN_THRESHOLDS } from './real-token.ts'
import { sqlFile } from '../../sql/sql-file.ts'

/**
 * Record the block in which each of `tokens` became real, for those not real yet. Runs after
 * every batch for the tokens the batch traded, and after a restart or a reorg for the tokens
 * of the blocks involved. Idempotent.
 *
 * A token turns real at the first block where its running totals meet every threshold, so one
 * that is not real yet and whose totals now meet them all turns real in the blocks just ingested,
 * and one whose totals fall short cannot have. The totals are a keyed read of token_activity; the
 * search for the block (a window over the token's per-block activity, costly to plan and to run)
 * runs only for the tokens that pass, which most batches have none of.
 */
export async function refreshTokenReal(ch: ClickHouseClient, chainId: number, tokens: Iterable<string>): Promise<void> {
  const list = [...new Set(tokens)]
  if (list.length === 0) return
  const thresholds = {
    min_swaps: REAL_TOKEN_THRESHOLDS.minSwaps,
    min_traders: REAL_TOKEN_THRESHOLDS.minTraders,
    min_volume: REAL_TOKEN_THRESHOLDS.minWethVolumeWei.toString(),
  }
  const turning = await queryRows<{ token: string }>(
    ch,
    `SELECT token FROM token_activity
     WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)}
       AND token NOT IN (SELECT token FROM token_real WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)})
     GROUP BY token
     HAVING sum(swaps) >= {min_swaps:UInt64} AND uniqExactMerge(traders) >= {min_traders:UInt64} AND sum(weth_volume) >= {min_volume:UInt256}`,
    { chain: chainId, tokens: list, ...thresholds },
  )
  if (turning.length === 0) return
  await ch.command({
    query: sqlFile(new URL('./refresh-token-real.sql', import.meta.url)),
    query_params: { chain: chainId, tokens: turning.map((t) => t.token), ...thresholds },
  })
}
