import { request as httpRequest, type IncomingMessage } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { DependencyUnavailableError } from '../core/dependency.ts'
import { SQL_LIMITS } from '../core/plans.ts'

/** The engine's own HTTP interface and the user a checked analyst query runs as there. */
export interface EngineHttp {
  url: string
  user: string
  password: string
}

/**
 * URL parameters of ClickHouse's HTTP interface that shape only how the answer travels: passed on
 * as the client sent them, so the engine itself answers compressed blocks (`compress=1`, LZ4 with
 * CityHash128 checksums, what JDBC asks for by default), HTTP compression, buffering to the end
 * of the query and progress headers exactly as a ClickHouse server does.
 */
const TRANSPORT_PARAMS = new Set([
  'compress', 'wait_end_of_query', 'buffer_size', 'enable_http_compression', 'http_zlib_compression_level',
  'send_progress_in_http_headers', 'http_headers_progress_interval_ms', 'http_wait_end_of_query', 'http_response_buffer_size',
])

/** Response headers the engine sets that a client reads (format, timezone, summary, progress, errors). */
const PASSED_HEADERS = /^(content-type|content-encoding|x-clickhouse-(?!server-display-name).*)$/i

/**
 * Run one checked statement on the engine as the analyst and stream its answer back unchanged.
 * The statement is the door's (prepareReadOnly's wrapped text), never the caller's; `param_`
 * values go as sent, since the engine reads their escapes itself.
 */
export async function forwardToEngine(
  engine: EngineHttp,
  req: FastifyRequest,
  reply: FastifyReply,
  run: { sql: string; queryId: string; database: string; params: Record<string, string> },
): Promise<void> {
  const url = new URL(engine.url)
  url.pathname = '/'
  url.searchParams.set('query_id', run.queryId)
  url.searchParams.set('database', run.database)
  for (const [k, v] of Object.entries(run.params)) if (TRANSPORT_PARAMS.has(k) || k.startsWith('param_')) url.searchParams.set(k, v)

  // Bounded: the engine answers (headers) within the analyst's time limit; the caller leaving cancels the query.
  // node:http, not fetch: fetch decodes an HTTP-compressed body, and the client asked for it encoded.
  const headers: Record<string, string | number> = {
    authorization: `Basic ${Buffer.from(`${engine.user}:${engine.password}`).toString('base64')}`,
    'content-type': 'text/plain; charset=UTF-8',
    'content-length': Buffer.byteLength(run.sql),
  }
  const acceptEncoding = req.headers['accept-encoding']
  if (typeof acceptEncoding === 'string') headers['accept-encoding'] = acceptEncoding
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const upstream = httpRequest(url, { method: 'POST', headers, timeout: (SQL_LIMITS.max_execution_time + 10) * 1000 }, resolve)
    upstream.once('timeout', () => upstream.destroy(new Error('no answer within the analyst time limit')))
    upstream.once('error', (err) => reject(new DependencyUnavailableError('clickhouse', `the engine did not answer: ${err.message}`, { cause: err })))
    reply.raw.once('close', () => upstream.destroy())
    upstream.end(run.sql)
  })
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && PASSED_HEADERS.test(k)) reply.header(k, v)
  return void reply.status(res.statusCode ?? 502).send(res)
}
