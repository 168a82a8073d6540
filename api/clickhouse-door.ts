import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ClickHouseError } from '@clickhouse/client'
import { isDependencyUnavailable } from '../core/dependency.ts'
import { planHas, SQL_LIMITS } from '../core/plans.ts'
import { deniedSetting } from '../sql/query-policy.ts'
import { normalizeSql, prepareReadOnly, ReadOnlyRefusal, streamBytes } from '../sql/read-only.ts'
import { createFailedLookups } from './access/failed-lookups.ts'
import { CompressedBodyError, decompressClickHouseBody } from './clickhouse-compressed-body.ts'
import { forwardToEngine, type EngineHttp } from './clickhouse-door-forward.ts'
import { LARGE_BODY_LIMIT_BYTES } from '../core/endpoint/body-limits.ts'
import { DOOR_UNAUTHENTICATED, doorKey } from './door-key.ts'
import type { ApiDeps } from '../core/endpoint/deps.ts'
import { ApiError } from '../core/endpoint/errors.ts'

/**
 * The data team's door: `/clickhouse` speaks the ClickHouse HTTP interface, so ClickHouse's own
 * clients and tools (clickhouse-connect, @clickhouse/client, anything that talks to port 8123)
 * connect to the service as to a server. Read-only, with an analyst key as the password of HTTP
 * basic auth or in X-ClickHouse-Key; each key bounded by SQL_LIMITS (time, memory, result rows
 * and bytes, queries per minute). The query comes in the `query` parameter and/or the POST body
 * (joined by a newline, as ClickHouse does); its FORMAT clause, else `default_format`, else
 * TabSeparated decides the output; settings come as URL parameters and `param_<name>` binds
 * `{name:Type}`. Refusals and failures answer in ClickHouse's own error body
 * (`Code: N. DB::Exception: … (NAME)`) with X-ClickHouse-Exception-Code.
 */

export const CLICKHOUSE_PATH = '/clickhouse'

/** What clients send on connecting that reads a harmless system table (compared whitespace-normalized). */
const PROBES = new Set(['SELECT name, value, readonly FROM system.settings LIMIT 10000', 'SELECT name, value, readonly FROM system.settings'].map(normalizeSql))

/** URL parameters of the HTTP interface that are not settings (ignored, or handled apart). */
const HTTP_PARAMS = new Set([
  'query', 'database', 'default_format', 'user', 'password', 'query_id', 'session_id', 'session_timeout', 'session_check', 'compress',
  'decompress', 'buffer_size', 'wait_end_of_query', 'quota_key', 'client_protocol_version', 'role', 'stacktrace', 'readonly',
])

/** Settings a client may lower but never raise past the key's limits. */
const CAPPED = ['max_execution_time', 'max_memory_usage', 'max_result_rows', 'max_result_bytes'] as const

/**
 * Output like a server's defaults, not like the service's own client (which quotes decimals and
 * writes ISO dates) nor like the embedded engine's library (which leaves 64-bit integers unquoted).
 */
const SERVER_OUTPUT = { date_time_output_format: 'simple', output_format_json_quote_decimals: 0, output_format_json_quote_64bit_integers: 1 }

/** ClickHouse's error codes for what this door answers itself, with the HTTP status a server gives them. */
const ERRORS = {
  AUTHENTICATION_FAILED: { code: 516, status: 401 },
  ACCESS_DENIED: { code: 497, status: 403 },
  READONLY: { code: 164, status: 403 },
  UNKNOWN_SETTING: { code: 115, status: 400 },
  UNKNOWN_DATABASE: { code: 81, status: 404 },
  SYNTAX_ERROR: { code: 62, status: 400 },
  QUOTA_EXCEEDED: { code: 201, status: 429 },
  NETWORK_ERROR: { code: 210, status: 503 },
  BAD_ARGUMENTS: { code: 36, status: 400 },
} as const

/** The HTTP status a ClickHouse server answers an error code with. */
function statusOf(code: number): number {
  if ([516, 192, 194, 193].includes(code)) return 401
  if ([497, 164, 291].includes(code)) return 403
  if ([60, 81, 83].includes(code)) return 404
  if ([62, 115, 36, 47, 46, 43, 53, 27, 26, 6, 72, 69, 70].includes(code)) return 400
  if ([201, 202].includes(code)) return 429
  return 500
}

class DoorError extends Error {
  constructor(
    readonly code: number,
    readonly codeName: string,
    message: string,
    readonly status = statusOf(code),
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

const fail = (name: keyof typeof ERRORS, message: string, headers?: Record<string, string>) =>
  new DoorError(ERRORS[name].code, name, message, ERRORS[name].status, headers)

/** The Content-Type a ClickHouse server gives a format. */
function contentType(format: string): string {
  const f = format.toLowerCase()
  if (f.startsWith('json')) return f === 'jsoneachrow' || f.startsWith('jsoncompacteachrow') || f.startsWith('jsonstringseachrow') ? 'application/x-ndjson; charset=UTF-8' : 'application/json; charset=UTF-8'
  if (f.startsWith('tabseparated') || f.startsWith('tsv')) return 'text/tab-separated-values; charset=UTF-8'
  if (f.startsWith('csv')) return `text/csv; charset=UTF-8; header=${f.startsWith('csvwithnames') ? 'present' : 'absent'}`
  if (f.startsWith('pretty') || f === 'vertical' || f === 'markdown' || f === 'values' || f.startsWith('xml') || f === 'null') return 'text/plain; charset=UTF-8'
  return 'application/octet-stream'
}


export interface ClickHouseDoor {
  plugin(app: FastifyInstance): Promise<void>
}

export function clickhouseDoor(
  deps: Pick<ApiDeps, 'ch' | 'keys' | 'store' | 'logger'> & {
    /**
     * The engine's HTTP interface (the engine process or a server): a checked query runs there
     * and its answer streams back as ClickHouse writes it (every format, compressed blocks,
     * headers). As the analyst user where there is one, whose grants cover only the analyst
     * tables, so the catalogue (system.tables, information_schema…) lists only those.
     */
    engine?: EngineHttp & { analyst: boolean }
  },
): ClickHouseDoor {
  let settingNames: Promise<Set<string>> | null = null
  let serverInfo: Promise<{ version: string; database: string }> | null = null
  const names = () =>
    (settingNames ??= deps.ch
      .query({ query: 'SELECT name FROM system.settings', format: 'JSONEachRow' })
      .then((rs) => rs.json<{ name: string }>())
      .then((rows) => new Set(rows.map((r) => r.name)))
      .catch((err) => {
        settingNames = null
        throw err
      }))
  const info = () =>
    (serverInfo ??= deps.ch
      .query({ query: 'SELECT version() AS version, currentDatabase() AS database', format: 'JSONEachRow' })
      .then((rs) => rs.json<{ version: string; database: string }>())
      .then((rows) => rows[0]!)
      .catch((err) => {
        serverInfo = null
        throw err
      }))

  const failures = createFailedLookups(deps.store)

  /** The key, checked: an analyst key that is live, within its rate; guessing is capped per address as at the API's gate. */
  async function admit(req: FastifyRequest): Promise<string> {
    const key = doorKey(req)
    const unauthenticated = DOOR_UNAUTHENTICATED
    if (!key) throw fail('AUTHENTICATION_FAILED', unauthenticated)
    try {
      await failures.refuseIfExhausted(req.ip)
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      throw fail('QUOTA_EXCEEDED', err.message, err.headers)
    }
    const record = await deps.keys.verify(key)
    if (!record) {
      await failures.failed(req.ip)
      throw fail('AUTHENTICATION_FAILED', unauthenticated)
    }
    if (!planHas(record.plan, 'sql')) throw fail('ACCESS_DENIED', `Not enough privileges: the ${record.plan} plan does not include SQL; an analyst key does.`)
    const minute = Math.floor(Date.now() / 60_000)
    const used = await deps.store.incr(`sqlrate:${record.keyHash}:${minute}`, 1, 60_000)
    if (used > SQL_LIMITS.queriesPerMinute) {
      const retry = String(Math.max(1, 60 - Math.floor((Date.now() % 60_000) / 1000)))
      throw fail('QUOTA_EXCEEDED', `Quota for key ${record.prefix} for 60s has been exceeded: queries = ${used}/${SQL_LIMITS.queriesPerMinute}. Interval will end in ${retry} s.`, { 'retry-after': retry })
    }
    return record.prefix
  }

  /** The settings of one query: the client's (known settings only), under the key's limits. */
  async function settingsOf(params: Record<string, string>): Promise<Record<string, string | number>> {
    const known = await names()
    const out: Record<string, string | number> = { ...SERVER_OUTPUT }
    for (const [k, v] of Object.entries(params)) {
      if (HTTP_PARAMS.has(k) || k.startsWith('param_') || k.startsWith('http_') || k === 'enable_http_compression' || k === 'send_progress_in_http_headers') continue
      if (!known.has(k)) throw fail('UNKNOWN_SETTING', `Unknown setting '${k}'.`)
      if (deniedSetting(k)) throw fail('READONLY', `Cannot modify '${k}' setting here: it reads or writes files, unlocks introspection or is fixed by your limits.`)
      out[k] = v
    }
    for (const k of CAPPED) {
      const asked = Number(out[k])
      out[k] = Number.isFinite(asked) && asked > 0 ? Math.min(asked, SQL_LIMITS[k]) : SQL_LIMITS[k]
    }
    out.result_overflow_mode = SQL_LIMITS.result_overflow_mode
    out.readonly = SQL_LIMITS.readonly
    return out
  }

  async function answer(req: FastifyRequest, reply: FastifyReply, body: Buffer | undefined): Promise<void> {
    const queryId = randomUUID()
    reply.header('x-clickhouse-query-id', queryId).header('x-clickhouse-server-display-name', 'chain-intel-svc').header('x-clickhouse-timezone', 'UTC')
    try {
      const params = Object.fromEntries(Object.entries((req.query ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(Array.isArray(v) ? v[0] : v)]))
      if (params.password !== undefined || params.user !== undefined) {
        throw fail('AUTHENTICATION_FAILED', 'Keys never go in the URL: give the key as the password of HTTP basic auth or in X-ClickHouse-Key.')
      }
      await admit(req)
      const { database } = await info()
      const wanted = params.database ?? (typeof req.headers['x-clickhouse-database'] === 'string' ? req.headers['x-clickhouse-database'] : undefined)
      if (wanted && wanted !== database) throw fail('UNKNOWN_DATABASE', `Database ${wanted} does not exist or is not readable here: the service's tables are in ${database}.`)
      if (!deps.engine && (params.compress === '1' || params.decompress === '1')) {
        throw fail('BAD_ARGUMENTS', 'Compressed blocks (compress=1, decompress=1) are answered when the engine runs as its own process (EMBEDDED_ENGINE=process, the default) or on a server; with the engine in the service\'s process, connect with compress=0.')
      }
      const sent = params.decompress === '1' && body?.length ? decompressClickHouseBody(body, LARGE_BODY_LIMIT_BYTES) : body
      const text = [params.query ?? '', sent?.toString('utf8') ?? ''].filter((s) => s.trim()).join('\n')
      // A server reads `param_` values in their escaped form (`a\\b` is `a\b`); the client below escapes them again to send them on.
      const queryParams = Object.fromEntries(Object.entries(params).filter(([k]) => k.startsWith('param_')).map(([k, v]) => [k.slice(6), unescapeParam(v)]))
      const formatHeader = req.headers['x-clickhouse-format']
      const prepared = await prepareReadOnly(deps.ch, text, {
        settings: await settingsOf(params),
        defaultFormat: params.default_format ?? (typeof formatHeader === 'string' ? formatHeader : 'TabSeparated'),
        params: queryParams,
        probes: PROBES,
        catalogue: deps.engine?.analyst ?? false,
      })
      // Checked with the service's view of the engine (every table and function name), run as the analyst.
      if (deps.engine) return await forwardToEngine(deps.engine, req, reply, { sql: prepared.sql, queryId, database, params })
      const rs = await deps.ch.exec({ query: prepared.sql, query_params: queryParams, query_id: queryId })
      const bytes = await streamBytes(rs.stream)
      if (rs.summary) reply.header('x-clickhouse-summary', JSON.stringify(rs.summary))
      reply.header('x-clickhouse-format', prepared.format).type(contentType(prepared.format)).status(200).send(bytes)
    } catch (err) {
      const e = asDoorError(err)
      if (e.status >= 500 && e.code !== ERRORS.NETWORK_ERROR.code) deps.logger.warn({ code: e.code, err: e.message }, 'clickhouse door query failed')
      const { version } = await info().catch(() => ({ version: 'unknown' }))
      reply
        .headers(e.headers)
        .header('x-clickhouse-exception-code', String(e.code))
        .type('text/plain; charset=UTF-8')
        .status(e.status)
        .send(`Code: ${e.code}. DB::Exception: ${e.message.replace(/\s+$/, '')} (${e.codeName}) (version ${version})\n`)
    }
  }

  return {
    async plugin(app) {
      await app.register(async (scope) => {
        // The body is the query (or its tail): any content type, read as bytes.
        scope.removeAllContentTypeParsers()
        scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, b, done) => done(null, b))
        // The reply itself is returned: a streamed answer is still being written when answer() resolves.
        const handler = async (req: FastifyRequest, reply: FastifyReply) => {
          await answer(req, reply, Buffer.isBuffer(req.body) ? req.body : undefined)
          return reply
        }
        const ping = async (_req: FastifyRequest, reply: FastifyReply) => reply.type('text/plain; charset=UTF-8').send('Ok.\n')
        for (const url of [CLICKHOUSE_PATH, `${CLICKHOUSE_PATH}/`]) scope.route({ method: ['GET', 'POST'], url, handler })
        for (const url of [`${CLICKHOUSE_PATH}/ping`, `${CLICKHOUSE_PATH}/ping/`]) scope.get(url, ping)
      })
    },
  }
}

const ESCAPES: Record<string, number> = { b: 0x08, f: 0x0c, r: 0x0d, n: 0x0a, t: 0x09, '0': 0x00, a: 0x07, v: 0x0b }

/**
 * A `param_` value as ClickHouse reads it: the escaped form of its text formats (`\n`, `\t`,
 * `\0`, `\xHH` a byte, and a backslash before any other character standing for that character).
 */
export function unescapeParam(value: string): string {
  if (!value.includes('\\')) return value
  const bytes = Buffer.from(value, 'utf8')
  const out: number[] = []
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x5c || i + 1 >= bytes.length) {
      out.push(bytes[i]!)
      continue
    }
    const c = String.fromCharCode(bytes[++i]!)
    const hex = c === 'x' ? bytes.subarray(i + 1, i + 3).toString('latin1') : ''
    if (/^[0-9a-fA-F]{2}$/.test(hex)) {
      out.push(parseInt(hex, 16))
      i += 2
    } else out.push(ESCAPES[c] ?? bytes[i]!)
  }
  return Buffer.from(out).toString('utf8')
}

/** Anything that went wrong, as ClickHouse would report it. */
function asDoorError(err: unknown): DoorError {
  if (err instanceof DoorError) return err
  if (err instanceof ReadOnlyRefusal) return new DoorError(err.code, err.codeName, err.message)
  if (err instanceof CompressedBodyError) return new DoorError(271, 'CANNOT_DECOMPRESS', err.message, 400)
  if (isDependencyUnavailable(err)) return fail('NETWORK_ERROR', 'A dependency (ClickHouse or the key store) is unavailable; retry shortly.', { 'retry-after': '5' })
  // The embedded engine's errors come from its own copy of the client library: known by shape.
  const ch = err as { code?: unknown; type?: unknown; message?: unknown }
  if (err instanceof ClickHouseError || (err instanceof Error && typeof ch.code === 'string' && /^\d+$/.test(ch.code))) {
    const e = err as ClickHouseError
    const code = Number(e.code)
    // The wrapper this door puts around a query is not the caller's: its text stays out of the message.
    const message = e.message.replace(/\s*\(version [^)]*\)\s*$/, '').replace(/^Code: \d+\. DB::Exception: /, '').replace(/\s*\([A-Z_]+\)\s*$/, '')
    return new DoorError(Number.isFinite(code) ? code : 1002, typeof e.type === 'string' && e.type ? e.type : 'UNKNOWN_EXCEPTION', message)
  }
  return new DoorError(1002, 'UNKNOWN_EXCEPTION', err instanceof Error ? err.message : String(err))
}
