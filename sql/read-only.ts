import type { ClickHouseClient } from '../core/clickhouse.ts'

/** Limits on the data team's ad-hoc SQL: read-only, bounded in time, memory and rows. */
export const READ_ONLY_LIMITS = {
  readonly: '2',
  max_execution_time: 30,
  max_memory_usage: String(2 * 1024 ** 3),
  max_result_rows: '100000',
  result_overflow_mode: 'throw',
} as const

/** Run one read-only query (a second statement or a write is refused by ClickHouse itself). */
export async function runReadOnlySql(ch: ClickHouseClient, query: string): Promise<Record<string, unknown>[]> {
  const rs = await ch.query({ query, format: 'JSONEachRow', clickhouse_settings: { ...READ_ONLY_LIMITS } })
  return rs.json<Record<string, unknown>>()
}
