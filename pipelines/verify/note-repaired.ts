import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { lastServedBatch, nextServingSeq } from '../../core/records/serving-changes.ts'

/**
 * Name repaired keys in serving_changes (at the last served batch), so API processes drop what
 * they cached of them when they next sync (at the next served batch).
 */
export async function noteRepaired(ch: ClickHouseClient, chainId: number, kind: 'wallet' | 'token', keys: string[]): Promise<void> {
  const last = await lastServedBatch(ch, chainId)
  if (!last || keys.length === 0) return
  const seq = nextServingSeq()
  await ch.insert({
    table: 'serving_changes',
    values: keys.map((key) => ({ chain_id: chainId, seq, kind, key, watermark: last.watermark, chain_time: last.chainTime })),
    format: 'JSONEachRow',
  })
}
