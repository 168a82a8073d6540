import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

/**
 * What a chain reorg means for grades. The chain processor's rollback (pipelines/process/
 * chain-rollback.ts) deletes swaps and real-token rows at or above the fork block and records
 * the reorg in `chain_reorgs`; a delete does not reach the grader's copies, so the grader, on
 * seeing the reorg, re-copies the swaps from the fork block on and re-grades every call whose
 * window reaches the fork's time, and the calls of tokens whose run was at or above the fork.
 */

export interface Reorg {
  fromBlock: number
  oldHash: string
  /** Detection time, unix ms. */
  detectedAt: number
}

/** Reorgs detected after `sinceMs`: chain_reorgs by its key (chain, detected_at). */
export async function reorgsSince(ch: ClickHouseClient, chainId: number, sinceMs: number): Promise<Reorg[]> {
  const rows = await queryRows<{ from_block: string; old_hash: string; at: string }>(
    ch,
    `SELECT from_block, old_hash, toUnixTimestamp64Milli(detected_at) AS at FROM chain_reorgs
     WHERE chain_id = {chain:UInt32} AND detected_at > fromUnixTimestamp64Milli({since:Int64}) ORDER BY detected_at`,
    { chain: chainId, since: sinceMs },
  )
  return rows.map((r) => ({ fromBlock: Number(r.from_block), oldHash: r.old_hash, detectedAt: Number(r.at) }))
}

/**
 * Is the rollback of `r` still running? It deletes the orphaned block rows last, so while the
 * old fork block is in chain_blocks (read by key) the swaps are not settled yet.
 */
export async function rollbackRunning(ch: ClickHouseClient, chainId: number, r: Reorg): Promise<boolean> {
  if (!r.oldHash) return false
  const [row] = await queryRows<{ n: string }>(
    ch,
    'SELECT count() AS n FROM chain_blocks WHERE chain_id = {chain:UInt32} AND number = {n:UInt64} AND hash = {h:String}',
    { chain: chainId, n: r.fromBlock, h: r.oldHash },
  )
  return Number(row!.n) > 0
}

/**
 * Make swaps_by_token agree with swaps from `fromBlock` on: drop its rows there (orphans
 * included) and copy what swaps holds now (the new fork's blocks that arrived already). Blocks
 * from there on are few (a reorg's depth plus what followed), and the copy reads swaps by its
 * key range; the delete scans the copy once per reorg. Rows inserted meanwhile may arrive twice,
 * which the copy absorbs (same key, same values). Exposed for a rollback that wants to call it
 * itself; the grader calls it when it sees the reorg.
 */
export async function resyncSwapsByToken(ch: ClickHouseClient, chainId: number, fromBlock: number): Promise<void> {
  const params = { chain: chainId, from: fromBlock }
  await ch.command({ query: 'DELETE FROM swaps_by_token WHERE chain_id = {chain:UInt32} AND block_number >= {from:UInt64}', query_params: params })
  await ch.command({
    query: `INSERT INTO swaps_by_token
            SELECT chain_id, token, block_number, log_index, block_time, tx_hash, pool, protocol, trader, token_in, token_out, weth_in, weth_out
            FROM swaps WHERE chain_id = {chain:UInt32} AND block_number >= {from:UInt64}`,
    query_params: params,
    // A token of its own: the copy must never be taken for an earlier insert of the same rows.
    clickhouse_settings: { insert_deduplicate: 1, insert_deduplication_token: `swaps-by-token-resync:${chainId}:${fromBlock}:${Date.now()}:${Math.random()}` },
  })
}

/**
 * The time of the last block before `fromBlock` (chain_blocks by key), 0 without one: no
 * rolled-back block is older, so only windows ending at or after it can have seen one.
 */
export async function timeBefore(ch: ClickHouseClient, chainId: number, fromBlock: number): Promise<number> {
  const [r] = await queryRows<{ t: string }>(
    ch,
    'SELECT toUnixTimestamp(timestamp) AS t FROM chain_blocks WHERE chain_id = {chain:UInt32} AND number < {n:UInt64} ORDER BY number DESC LIMIT 1',
    { chain: chainId, n: fromBlock },
  )
  return r ? Number(r.t) : 0
}

/**
 * Tokens whose run was recorded at or above `fromBlock` (their run may be gone or moved). Reads
 * token_real_noted, a week of crossings (small: tokens that ran), once per reorg.
 */
export async function tokensRunFrom(ch: ClickHouseClient, chainId: number, fromBlock: number): Promise<string[]> {
  const rows = await queryRows<{ token: string }>(
    ch,
    'SELECT DISTINCT token FROM token_real_noted WHERE chain_id = {chain:UInt32} AND real_block >= {n:UInt64}',
    { chain: chainId, n: fromBlock },
  )
  return rows.map((r) => r.token)
}

/**
 * Where a grader without a checkpoint starts reading reorgs: shortly before migration 012 copied
 * swaps into swaps_by_token (schema_migrations). Rollbacks finished before the copy are in it;
 * a reorg detected since (or during, hence the minute) may have left orphans in the copy.
 */
export async function copiedAt(ch: ClickHouseClient): Promise<number> {
  const [r] = await queryRows<{ t: string | null }>(
    ch,
    "SELECT toUnixTimestamp64Milli(min(applied_at)) AS t FROM schema_migrations WHERE name = '012_call_grades'",
  )
  return Math.max(0, Number(r?.t ?? 0) - 60_000)
}
