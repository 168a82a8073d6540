import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

/**
 * Whether the chain has anything of `token`: a transfer, a pool or its creation, the same
 * evidence a structure or forensics scan needs to answer. Three keyed reads of one row each
 * (every table is ordered by chain and token or address), so refusing an address nobody has seen
 * costs a few milliseconds, not a queued job.
 */
export async function isKnownToken(ch: ClickHouseClient, chainId: number, token: string): Promise<boolean> {
  const [r] = await queryRows<{ n: string }>(
    ch,
    `SELECT
       (SELECT count() FROM (SELECT 1 FROM holder_deltas WHERE chain_id = {chain:UInt32} AND token = {token:String} LIMIT 1))
     + (SELECT count() FROM (SELECT 1 FROM token_pools WHERE chain_id = {chain:UInt32} AND token = {token:String} LIMIT 1))
     + (SELECT count() FROM (SELECT 1 FROM contract_creations WHERE chain_id = {chain:UInt32} AND address = {token:String} LIMIT 1)) AS n`,
    { chain: chainId, token },
  )
  return Number(r?.n ?? 0) > 0
}
