import { ClickHouseError, createClient, TupleParam, type ClickHouseClient } from '@clickhouse/client'
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Config } from './config.ts'
import { isolatingSettings, settingDefaults } from './chdb-settings.ts'
import { DependencyUnavailableError } from './dependency.ts'

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
  config: Pick<Config, 'CLICKHOUSE_URL' | 'CLICKHOUSE_USER' | 'CLICKHOUSE_PASSWORD' | 'CLICKHOUSE_DATABASE' | 'DATA_DIR'> &
    Partial<Pick<Config, 'CLICKHOUSE_REQUEST_TIMEOUT_MS'>>,
): Promise<ClickHouseClient> {
  if (config.CLICKHOUSE_URL) {
    const client = reportingUnavailability(cancellingAbandonedReads(
      createClient({
        url: config.CLICKHOUSE_URL,
        username: config.CLICKHOUSE_USER,
        password: config.CLICKHOUSE_PASSWORD,
        database: config.CLICKHOUSE_DATABASE,
        clickhouse_settings: COMMON_SETTINGS,
        // A server that accepts the connection and then says nothing must not hold a request
        // for the client's default 30 s: the timer runs until the answer starts.
        request_timeout: config.CLICKHOUSE_REQUEST_TIMEOUT_MS ?? 5_000,
        // The API and the pipeline share this client: with the library's 10 sockets a request's
        // keyed reads queued on the client behind batch statements (svc_engine_wait_seconds
        // showed it); the engine orders what runs by its own priorities.
        max_open_connections: ENGINE_CONNECTIONS,
      })),
    )
    const timeoutMs = config.CLICKHOUSE_REQUEST_TIMEOUT_MS ?? 5_000
    if (timeoutMs < LONG_STATEMENT_MS) {
      const made = new Map<number, Promise<ClickHouseClient>>()
      const make = (ms: number) => made.get(ms) ?? made.set(ms, createClickHouse({ ...config, CLICKHOUSE_REQUEST_TIMEOUT_MS: ms })).get(ms)!
      siblings.set(client, { timeoutMs, make })
      const close = client.close.bind(client)
      // Closing the client closes its siblings (long statements, patient retries) too.
      Object.defineProperty(client, 'close', {
        value: async () => Promise.all([close(), ...[...made.values()].map((c) => c.then((l) => l.close()))]).then(() => undefined),
        configurable: true,
        writable: true,
      })
    }
    return client
  }
  const path = resolve(config.DATA_DIR, 'clickhouse')
  mkdirSync(path, { recursive: true })
  const { createChdbConnection } = await import('chdb/connection')
  const client = createClient({
    connection: createChdbConnection({ path }),
    clickhouse_settings: COMMON_SETTINGS,
  } as Parameters<typeof createClient>[0])
  const isolated = isolatingSettings(client, await settingDefaults(client), COMMON_SETTINGS)
  embeddedClients.add(isolated)
  return isolated
}

const embeddedClients = new WeakSet<object>()

/** Sockets to an engine over HTTP per client (the library's default is 10). */
const ENGINE_CONNECTIONS = 32

/** How long a statement that is expected to run long (an audit over every key) may stay silent. */
const LONG_STATEMENT_MS = 15 * 60_000

/**
 * A server client's siblings: the same engine with a longer request timeout, made once per
 * timeout and closed with it. The embedded engine has no request timeout, so no siblings.
 */
interface Siblings {
  /** The client's own request timeout (CLICKHOUSE_REQUEST_TIMEOUT_MS). */
  timeoutMs: number
  make(timeoutMs: number): Promise<ClickHouseClient>
}
const siblings = new WeakMap<object, Siblings>()

/**
 * The client to send statements that may run long with (`svc verify`, the audit): on a server, a
 * sibling of `ch` that waits LONG_STATEMENT_MS for an answer instead of giving up after
 * CLICKHOUSE_REQUEST_TIMEOUT_MS (which keeps API reads failing fast); the embedded engine has no
 * such limit, so `ch` itself.
 */
export function forLongStatements(ch: ClickHouseClient): Promise<ClickHouseClient> {
  return siblings.get(ch)?.make(LONG_STATEMENT_MS) ?? Promise.resolve(ch)
}

/**
 * `ch` waiting `factor` times its request timeout for an answer (at most LONG_STATEMENT_MS): how a
 * consumer retries after a statement of its timed out (core/engine-accounting.ts, patience), so
 * that a statement the engine needs longer for is answered at last instead of being sent again on
 * the same timeout for ever. `ch` itself for factor 1 and on the embedded engine.
 */
export function withPatience(ch: ClickHouseClient, factor: number): Promise<ClickHouseClient> {
  const s = siblings.get(ch)
  return s && factor > 1 ? s.make(Math.min(LONG_STATEMENT_MS, s.timeoutMs * factor)) : Promise.resolve(ch)
}

/** `wrapper` (a client that wraps `inner`) has `inner`'s siblings, each wrapped with `wrap`. */
export function siblingsLike(wrapper: ClickHouseClient, inner: ClickHouseClient, wrap: (sibling: ClickHouseClient) => ClickHouseClient): void {
  const s = siblings.get(inner)
  if (!s) return
  const wrapped = new Map<number, Promise<ClickHouseClient>>()
  siblings.set(wrapper, { timeoutMs: s.timeoutMs, make: (ms) => wrapped.get(ms) ?? wrapped.set(ms, s.make(ms).then(wrap)).get(ms)! })
}

/** Whether the client is the embedded engine (chDB): one session for the whole process. */
export function isEmbedded(ch: ClickHouseClient): boolean {
  return embeddedClients.has(ch)
}

/** The client calls that go over the network to the server. */
const REQUESTS = new Set<PropertyKey>(['query', 'insert', 'command', 'exec'])

/**
 * The same client, with a server that cannot be reached or does not answer in time reported
 * as DependencyUnavailableError (503 on the API). An error the server answered with (bad SQL,
 * a missing table) is not unavailability and passes through unchanged.
 */
function reportingUnavailability(client: ClickHouseClient): ClickHouseClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (!REQUESTS.has(prop) || typeof value !== 'function') return value
      return (...args: unknown[]) =>
        (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch((err: unknown) => {
          throw isUnreachable(err) ? new DependencyUnavailableError('clickhouse', (err as Error).message, { cause: err }) : err
        })
    },
  })
}

/**
 * A server's reads (`query`: every read the service sends, never a write) marked read-only
 * (`readonly = 2`: settings may still change) and to be cancelled when their client closes: a
 * read the service gave up on (its request timed out) then stops on the engine instead of running
 * on for the seconds or minutes it needs, behind which the shared engine's other statements wait.
 * ClickHouse cancels on a closed connection only read-only queries, and an HTTP POST is not one
 * unless told. (chDB in one process has no connection to close, and refuses a per-call readonly.)
 */
function cancellingAbandonedReads(client: ClickHouseClient): ClickHouseClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (prop !== 'query' || typeof value !== 'function') return value
      return (params: { clickhouse_settings?: Record<string, unknown> }) =>
        (value as (p: unknown) => unknown).call(target, { ...params, clickhouse_settings: { ...ABANDONED_READS_CANCELLED, ...params.clickhouse_settings } })
    },
  })
}

const ABANDONED_READS_CANCELLED = { readonly: '2', cancel_http_readonly_queries_on_client_close: 1 } as const

/** Connection refused/reset/unresolvable, or the request timed out: the server is not there for us. */
export function isUnreachable(err: unknown): boolean {
  if (!(err instanceof Error) || err instanceof ClickHouseError) return false
  const code = (err as NodeJS.ErrnoException).code
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true
  return /timeout|socket hang up|ECONN/i.test(err.message)
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

/** Rows as an Array(Tuple(...)) query parameter (a plain array would be sent as an array). */
export const tupleParam = (rows: ReadonlyArray<readonly unknown[]>) => rows.map((r) => new TupleParam([...r]))
