import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { DAY_SECONDS } from './holder-balances.ts'

/**
 * Tokens transferred in the blocks that left the 24 h holder window between two chain times: the
 * window's baseline moved from the latest block at or before `from - 24 h` to the one at or before
 * `to - 24 h`. One statement: both baselines read from block_times by time, then a range read of
 * erc20_transfers by block; nothing when either baseline does not exist yet (the window was not
 * full: readers see its fullness change instead).
 */
export async function tokensLeavingWindow(ch: ClickHouseClient, chainId: number, from: number, to: number): Promise<string[]> {
  const baseline = (t: string) =>
    `(SELECT tuple(count(), max(number)) FROM (SELECT number FROM block_times WHERE chain_id = {chain:UInt32} AND timestamp <= toDateTime(${t}, 'UTC')
       ORDER BY chain_id DESC, timestamp DESC, number DESC LIMIT 1))`
  const rows = await queryRows<{ token: string }>(
    ch,
    `WITH ${baseline('{lo:UInt32}')} AS before, ${baseline('{hi:UInt32}')} AS after
     SELECT DISTINCT token FROM erc20_transfers
     WHERE chain_id = {chain:UInt32} AND before.1 = 1 AND after.1 = 1 AND block_number > before.2 AND block_number <= after.2`,
    { chain: chainId, lo: Math.max(0, from - DAY_SECONDS), hi: Math.max(0, to - DAY_SECONDS) },
  )
  return rows.map((r) => r.token)
}
