import { lastServedBatch } from '../../core/records/serving-changes.ts'
import { blockAt, refreshServingState } from '../process/serving-refresh.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { keepsTokenProducts } from '../../core/chains.ts'
import type { ViewCheck } from '../../core/records/verify-report.ts'

/** token_state (newest row per token of ours: created or launched): swap count, WETH volume, traders, first and last swap block. */
export const tokenStateCheck: ViewCheck = {
  view: 'token_state',
  against: 'the swaps rows of the token (count, sum of weth_in + weth_out, distinct traders, first and last block)',
  perChain: true,
  keptFor: keepsTokenProducts,
  kept: (sample) => `
    SELECT token AS key, toString(tuple(swaps, weth_volume, traders, first_swap_block, last_swap_block)) AS v
    FROM (SELECT token, present, swaps, weth_volume, traders, first_swap_block, last_swap_block FROM token_state
          WHERE chain_id = {chain:UInt32} AND ${sample('token')} ORDER BY token, version DESC LIMIT 1 BY token)
    WHERE present`,
  fresh: (sample) => `
    SELECT t.token AS key, toString(tuple(toUInt64(s.n), toUInt256(s.vol), toUInt64(s.traders), toUInt64(s.lo), toUInt64(s.hi))) AS v
    FROM (SELECT DISTINCT token FROM (
            SELECT address AS token FROM contract_creations WHERE chain_id = {chain:UInt32} AND ${sample('address')}
            UNION ALL SELECT token FROM launches WHERE chain_id = {chain:UInt32} AND ${sample('token')})) AS t
    LEFT JOIN (SELECT token, count() AS n, sum(weth_in + weth_out) AS vol, uniqExact(trader) AS traders, min(block_number) AS lo, max(block_number) AS hi
               FROM swaps WHERE chain_id = {chain:UInt32} AND ${sample('token')} GROUP BY token) AS s ON s.token = t.token
    SETTINGS join_use_nulls = 0`,
  repair: (ch, chain, keys) => refreshTokens(ch, chain!, keys),
}

/**
 * Refresh token_state for `tokens` (and deployer_state for their deployers) as a serving refresh
 * does, at the last served batch, and name them in serving_changes so API caches drop them.
 */
export async function refreshTokens(ch: ClickHouseClient, chainId: number, tokens: string[]): Promise<void> {
  const last = await lastServedBatch(ch, chainId)
  if (!last) return
  const head = await blockAt(ch, chainId, last.watermark)
  await refreshServingState(
    ch, chainId,
    { tokens: new Set(tokens), launched: new Set(), traders: new Set(), tradedTokens: new Set() },
    { watermark: last.watermark, chainTime: head.time, watermarkHash: head.hash, scope: { kind: 'rebuild' } },
  )
}
