import type { ClickHouseClient } from '@clickhouse/client'

/** The client calls that carry per-call clickhouse_settings. */
const CALLS = new Set<PropertyKey>(['query', 'insert', 'command', 'exec'])

/**
 * chDB's connection applies a call's `clickhouse_settings` as `SET` statements on its one
 * session, so they stay in force for every later call of the process: a leaked
 * `insert_deduplication_token` makes later inserts into a deduplicating table vanish as
 * duplicates, a leaked `insert_deduplicate = 0` turns exactly-once off, a leaked `readonly`
 * refuses every later write. This wraps the embedded client so each call first resets, to their
 * defaults, every setting any call ever set and this one does not (the client's own settings,
 * sent with every call, are left alone). The resets go with the call itself (the connection
 * sends them and the statement as one text), never by an earlier call's bookkeeping: calls may
 * reach the engine in another order than they were made (an insert first reads its body), and a
 * reset recorded by a call that ran before an insert with a deduplication token would have left
 * that token in force for the call after it, whose rows then vanished as duplicates.
 * `readonly` cannot be reset once set: it is refused here, and read-only SQL on chDB is bounded
 * by a query-level SETTINGS clause instead.
 */
export function isolatingSettings(client: ClickHouseClient, defaults: Map<string, string>, clientSettings: Record<string, unknown>): ClickHouseClient {
  // Settings some call has set (a handful of names: deduplication, threads, limits), reset by every other call.
  const everSet = new Set<string>()
  function settingsFor(own: Record<string, unknown> | undefined): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(own ?? {})) {
      if (v === undefined) continue
      if (k === 'readonly') throw new Error('readonly cannot be set per call on chDB (it would stay for the whole process); use a query-level SETTINGS clause')
      if (!(k in clientSettings)) everSet.add(k)
    }
    for (const k of everSet) if (!own || own[k] === undefined) out[k] = defaults.get(k) ?? ''
    for (const [k, v] of Object.entries(own ?? {})) if (v !== undefined) out[k] = v
    return out
  }
  // One call at a time, each with the engine to itself until it is answered: chDB runs one
  // statement at a time anyway, and a statement that fails after it began writing its output
  // (a result limit reached at 130,000 rows) leaves that output behind for the next call, which
  // is answered with it instead of its own rows. A failed call is followed by a throwaway
  // statement that takes the leftover, before any other call runs.
  let tail: Promise<unknown> = Promise.resolve()
  const flush = () =>
    (client.query({ query: 'SELECT 1', format: 'JSONEachRow' }) as Promise<{ text(): Promise<string> }>).then((rs) => rs.text()).catch(() => undefined)
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (!CALLS.has(prop) || typeof value !== 'function') return value
      return (params: { clickhouse_settings?: Record<string, unknown> }) => {
        const settings = settingsFor(params.clickhouse_settings)
        const run = tail.then(() => (value as (p: unknown) => Promise<unknown>).call(target, { ...params, clickhouse_settings: settings }))
        tail = run.then(
          () => undefined,
          () => flush(),
        )
        return run
      }
    },
  })
}

/** Every setting's default value, by name (to reset what a call set). */
export async function settingDefaults(client: ClickHouseClient): Promise<Map<string, string>> {
  const rs = await client.query({ query: 'SELECT name, default FROM system.settings', format: 'JSONEachRow' })
  return new Map((await rs.json<{ name: string; default: string }>()).map((r) => [r.name, r.default]))
}
