import type { ClickHouseClient } from '@clickhouse/client'

/** The client calls that carry per-call clickhouse_settings. */
const CALLS = new Set<PropertyKey>(['query', 'insert', 'command', 'exec'])

/**
 * chDB's connection applies a call's `clickhouse_settings` as `SET` statements on its one
 * session, so they stay in force for every later call of the process: a leaked
 * `insert_deduplication_token` makes later inserts into a deduplicating table vanish as
 * duplicates, a leaked `insert_deduplicate = 0` turns exactly-once off, a leaked `readonly`
 * refuses every later write. This wraps the embedded client so each call first resets, to their
 * defaults, the settings an earlier call set and this one does not (the client's own settings,
 * sent with every call, are left alone). `readonly` cannot be reset once set: it is refused
 * here, and read-only SQL on chDB is bounded by a query-level SETTINGS clause instead.
 */
export function isolatingSettings(client: ClickHouseClient, defaults: Map<string, string>, clientSettings: Record<string, unknown>): ClickHouseClient {
  const dirty = new Set<string>()
  function settingsFor(own: Record<string, unknown> | undefined): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const k of dirty) if (!own || own[k] === undefined) out[k] = defaults.get(k) ?? ''
    dirty.clear()
    for (const [k, v] of Object.entries(own ?? {})) {
      if (v === undefined) continue
      if (k === 'readonly') throw new Error('readonly cannot be set per call on chDB (it would stay for the whole process); use a query-level SETTINGS clause')
      out[k] = v
      if (!(k in clientSettings)) dirty.add(k)
    }
    return out
  }
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (!CALLS.has(prop) || typeof value !== 'function') return value
      return (params: { clickhouse_settings?: Record<string, unknown> }) =>
        (value as (p: unknown) => Promise<unknown>).call(target, { ...params, clickhouse_settings: settingsFor(params.clickhouse_settings) })
    },
  })
}

/** Every setting's default value, by name (to reset what a call set). */
export async function settingDefaults(client: ClickHouseClient): Promise<Map<string, string>> {
  const rs = await client.query({ query: 'SELECT name, default FROM system.settings', format: 'JSONEachRow' })
  return new Map((await rs.json<{ name: string; default: string }>()).map((r) => [r.name, r.default]))
}
