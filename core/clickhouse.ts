import { createClient, type ClickHouseClient } from '@clickhouse/client'
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Config } from './config.ts'

export type { ClickHouseClient }

/**
 * Settings on every query. 64-bit and wider integers are quoted in JSON output so that wei
 * amounts (UInt256/Int256) and counts reach JavaScript as exact decimal strings.
 */
const COMMON_SETTINGS = {
  output_format_json_quote_64bit_integers: 1,
  output_format_json_quote_decimals: 1,
  date_time_output_format: 'iso',
} as const

/**
 * One ClickHouse client for both modes: a server over HTTP when CLICKHOUSE_URL is set,
 * otherwise chDB embedded under DATA_DIR. Same SQL, same materialized views either way.
 * chDB is one engine per process: only one data path may be open in a process at a time.
 */
export async function createClickHouse(
  config: Pick<Config, 'CLICKHOUSE_URL' | 'CLICKHOUSE_USER' | 'CLICKHOUSE_PASSWORD' | 'CLICKHOUSE_DATABASE' | 'DATA_DIR'>,
): Promise<ClickHouseClient> {
  if (config.CLICKHOUSE_URL) {
    return createClient({
      url: config.CLICKHOUSE_URL,
      username: config.CLICKHOUSE_USER,
      password: config.CLICKHOUSE_PASSWORD,
      database: config.CLICKHOUSE_DATABASE,
      clickhouse_settings: COMMON_SETTINGS,
    })
  }
  const path = resolve(config.DATA_DIR, 'clickhouse')
  mkdirSync(path, { recursive: true })
  const { createChdbConnection } = await import('chdb/connection')
  return createClient({
    connection: createChdbConnection({ path }),
    clickhouse_settings: COMMON_SETTINGS,
  } as Parameters<typeof createClient>[0])
}

/** Run a query and return its rows (JSONEachRow). */
export async function queryRows<T>(
  ch: ClickHouseClient,
  query: string,
  params: Record<string, unknown> = {},
): Promise<T[]> {
  const rs = await ch.query({ query, query_params: params, format: 'JSONEachRow' })
  return rs.json<T>()
}
