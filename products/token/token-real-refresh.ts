import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { REAL_TOKEN_THRESHOLDS } from './real-token.ts'
import { sqlFile } from '../../sql/sql-file.ts'

/**
 * Record the block in which each of `tokens` became real, for those not real yet. Runs after
 * every batch for the tokens the batch traded, and after a restart or a reorg for the tokens
 * of the blocks involved. Idempotent.
 */
export async function refreshTokenReal(ch: ClickHouseClient, chainId: number, tokens: Iterable<string>): Promise<void> {
  const list = [...new Set(tokens)]
  if (list.length === 0) return
  await ch.command({
    query: sqlFile(new URL('./refresh-token-real.sql', import.meta.url)),
    query_params: {
      chain: chainId,
      tokens: list,
      min_swaps: REAL_TOKEN_THRESHOLDS.minSwaps,
      min_traders: REAL_TOKEN_THRESHOLDS.minTraders,
      min_volume: REAL_TOKEN_THRESHOLDS.minWethVolumeWei.toString(),
    },
  })
}
