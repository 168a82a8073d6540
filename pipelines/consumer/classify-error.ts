/**
 * Whether a thrown error is worth retrying as is. Retryable: the other side was unreachable,
 * slow or overloaded, so the same work succeeds later (retried with backoff, without limit).
 * Fatal: the work itself is refused (a schema error, a row ClickHouse cannot parse, a bug), so
 * retrying it forever would block the partition (dead-lettered after a bounded number of tries).
 */
export type ErrorClass = 'retryable' | 'fatal'

const RETRYABLE_NET_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EAI_AGAIN',
  'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CLOSED',
])

/**
 * ClickHouse codes that say "not now" rather than "not this row": timeouts, too many queries or
 * parts, memory pressure, network, a read-only replica, an insert of unknown outcome.
 */
const RETRYABLE_CLICKHOUSE_CODES = new Set([
  159, 160, 202, 203, 209, 210, 236, 241, 242, 252, 285, 319, 394, 425, 999,
])

/** The ClickHouse error code of an error from @clickhouse/client or chDB (`Code: 27. DB::Exception...`). */
export function clickHouseCode(err: unknown): number | undefined {
  const e = err as { code?: unknown; message?: unknown }
  if (typeof e?.code === 'string' && /^\d+$/.test(e.code)) return Number(e.code)
  const m = typeof e?.message === 'string' ? /\bCode: (\d+)\b/.exec(e.message) : null
  return m ? Number(m[1]) : undefined
}

function httpStatus(err: unknown): number | undefined {
  const e = err as { status?: unknown; statusCode?: unknown; response?: { status?: unknown } }
  const s = e?.status ?? e?.statusCode ?? e?.response?.status
  return typeof s === 'number' ? s : undefined
}

export function classifyError(err: unknown): ErrorClass {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const x = e as { code?: unknown; name?: unknown; message?: unknown; retriable?: unknown }
    if (typeof x.code === 'string' && RETRYABLE_NET_CODES.has(x.code)) return 'retryable'
    // kafkajs marks its own transient failures (leader moved, request timed out, broker down).
    if (x.retriable === true) return 'retryable'
    if (x.name === 'TimeoutError' || x.name === 'KafkaJSConnectionError' || x.name === 'KafkaJSRequestTimeoutError') return 'retryable'
    const status = httpStatus(e)
    if (status !== undefined && status >= 500) return 'retryable'
    const code = clickHouseCode(e)
    if (code !== undefined) return RETRYABLE_CLICKHOUSE_CODES.has(code) ? 'retryable' : 'fatal'
    if (typeof x.message === 'string' && /\b(timed? ?out|socket hang up|connection (refused|reset|closed))\b/i.test(x.message)) return 'retryable'
  }
  return 'fatal'
}

/** The message kept with a dead-lettered record, with the ClickHouse code when the message lacks it. */
export function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
  const code = clickHouseCode(err)
  return (code !== undefined && !message.includes(`Code: ${code}`) ? `Code: ${code}. ${message}` : message).slice(0, 1000)
}
