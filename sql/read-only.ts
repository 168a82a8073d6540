import { isEmbedded, type ClickHouseClient } from '../core/clickhouse.ts'

/** Limits on the data team's ad-hoc SQL: read-only, bounded in time, memory and rows. */
export const READ_ONLY_LIMITS = {
  readonly: '2',
  max_execution_time: 30,
  max_memory_usage: String(2 * 1024 ** 3),
  max_result_rows: '100000',
  result_overflow_mode: 'throw',
} as const

/**
 * Tables holding secrets or customer data by key hash (webhook signing secrets, key hashes,
 * connection tokens, watchlists): not readable through ad-hoc SQL.
 */
const SECRET_TABLES = /\b(webhooks|api_keys|mcp_connections|watchlists)\b/i

/** Run one read-only query (a second statement or a write is refused by ClickHouse itself). */
export async function runReadOnlySql(ch: ClickHouseClient, query: string): Promise<Record<string, unknown>[]> {
  if (SECRET_TABLES.test(query)) throw new Error('the webhooks, api_keys, mcp_connections and watchlists tables hold secrets or customer data and are not readable through ad-hoc SQL')
  if (/\breadonly\b/i.test(query)) throw new Error('queries may not name the readonly setting')
  if (!isEmbedded(ch)) {
    const rs = await ch.query({ query, format: 'JSONEachRow', clickhouse_settings: { ...READ_ONLY_LIMITS } })
    return rs.json<Record<string, unknown>>()
  }
  // chDB: settings of a call would stay on its one session (core/chdb-settings.ts), so the
  // limits go in a query-level SETTINGS clause around the query, which also admits one SELECT only.
  const limits = Object.entries(READ_ONLY_LIMITS).map(([k, v]) => `${k} = ${typeof v === 'number' ? v : `'${v}'`}`).join(', ')
  const body = query.trim().replace(/;\s*$/, '')
  // SHOW, DESCRIBE, EXISTS and EXPLAIN read the catalogue and never write; one statement only.
  const catalogue = /^(show|describe|desc|exists|explain)\b/i.test(body) && !body.includes(';')
  const sql = /^(select|with)\b/i.test(body) ? `SELECT * FROM (${body}) SETTINGS ${limits}` : catalogue ? body : null
  if (sql === null) throw new Error('only SELECT (or WITH … SELECT), SHOW, DESCRIBE, EXISTS and EXPLAIN queries are allowed')
  const rs = await ch.query({ query: sql, format: 'JSONEachRow' })
  return rs.json<Record<string, unknown>>()
}
