import type { InfraKind } from '../../core/infra-faults.ts'

/**
 * Whether a thrown error is about the work or about the environment it ran in.
 *  - retryable: an infrastructure fault (file descriptors or disk exhausted, the engine out of
 *    memory or timed out, a connection refused or reset, the broker or the store away). The same
 *    work succeeds once it clears, so it is retried with backoff for as long as it lasts and is
 *    never dead-lettered: dead-lettering it would lose a good record (a block) for good.
 *  - fatal: the work itself is refused (a value ClickHouse cannot parse, a statement it rejects,
 *    a record a step throws on), so retrying it forever would block the partition: dead-lettered
 *    after a bounded number of tries.
 * When in doubt between the two, a known environment marker wins, except on an error whose
 * ClickHouse code says the data was refused: its message quotes the record, which must not be
 * able to pass itself off as an outage and stall the pipeline.
 */
export type ErrorClass = 'retryable' | 'fatal'

/** Node and undici error codes of the environment, by kind. */
const NODE_CODES: Record<string, InfraKind> = {
  EMFILE: 'fd_exhausted', ENFILE: 'fd_exhausted',
  ENOSPC: 'disk_full', EDQUOT: 'disk_full',
  ENOMEM: 'memory',
  ETIMEDOUT: 'timeout', ESOCKETTIMEDOUT: 'timeout', UND_ERR_CONNECT_TIMEOUT: 'timeout', UND_ERR_HEADERS_TIMEOUT: 'timeout', UND_ERR_BODY_TIMEOUT: 'timeout',
  ECONNREFUSED: 'network', ECONNRESET: 'network', ECONNABORTED: 'network', EPIPE: 'network', EHOSTUNREACH: 'network', ENETUNREACH: 'network',
  ENETDOWN: 'network', EAI_AGAIN: 'network', UND_ERR_SOCKET: 'network', UND_ERR_CLOSED: 'network', ERR_SOCKET_CLOSED: 'network',
  EAGAIN: 'os', EBUSY: 'os', EIO: 'os', EINTR: 'os',
}

/** Linux errno numbers as ClickHouse prints them (`errno: 24, strerror: Too many open files`). */
const ERRNO: Record<number, InfraKind> = {
  24: 'fd_exhausted', 23: 'fd_exhausted', 28: 'disk_full', 122: 'disk_full', 12: 'memory',
  110: 'timeout', 111: 'network', 104: 'network', 32: 'network', 113: 'network', 101: 'network',
}

/** strerror texts and other messages of the environment. */
const MESSAGES: Array<[RegExp, InfraKind]> = [
  [/too many open files/i, 'fd_exhausted'],
  [/no space left on device|disk quota exceeded/i, 'disk_full'],
  [/cannot allocate memory|out of memory/i, 'memory'],
  [/\btimed? ?out\b/i, 'timeout'],
  [/socket hang up|connection (?:is )?(?:refused|reset|closed)|connection is closed|broken pipe/i, 'network'],
  [/resource temporarily unavailable/i, 'os'],
]

/**
 * ClickHouse codes that say "not this data": the values of a row cannot be parsed or do not fit
 * their column. Only these are a record's fault.
 */
const DATA_CODES = new Set([
  6, // CANNOT_PARSE_TEXT
  25, // CANNOT_PARSE_ESCAPE_SEQUENCE
  26, // CANNOT_PARSE_QUOTED_STRING
  27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  32, // ATTEMPT_TO_READ_AFTER_EOF
  38, // CANNOT_PARSE_DATE
  41, // CANNOT_PARSE_DATETIME
  53, // TYPE_MISMATCH
  69, // ARGUMENT_OUT_OF_BOUND
  70, // CANNOT_CONVERT_TYPE
  72, // CANNOT_PARSE_NUMBER
  117, // INCORRECT_DATA
  130, // CANNOT_READ_ARRAY_FROM_TEXT
  131, // TOO_LARGE_STRING_SIZE
  190, // SIZES_OF_ARRAYS_DONT_MATCH
  321, // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  349, // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
  376, // CANNOT_PARSE_UUID
  395, // FUNCTION_THROW_IF_VALUE_IS_NON_ZERO
  407, // DECIMAL_OVERFLOW
  441, // CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING
  467, // CANNOT_PARSE_BOOL
  469, // VIOLATED_CONSTRAINT
  691, // UNKNOWN_ELEMENT_OF_ENUM
])

/**
 * ClickHouse codes that say "not now": files and descriptors, timeouts, memory and disk, too
 * many queries or parts, network, a read-only replica, an insert of unknown outcome, a query
 * cancelled under it, the engine's own system errors.
 */
const ENV_CODES: Record<number, InfraKind> = {
  74: 'os', 75: 'os', 76: 'os', // CANNOT_READ_FROM / WRITE_TO_FILE_DESCRIPTOR, CANNOT_OPEN_FILE
  159: 'timeout', 160: 'timeout', 209: 'timeout', // TIMEOUT_EXCEEDED, TOO_SLOW, SOCKET_TIMEOUT
  173: 'memory', 241: 'memory', // CANNOT_ALLOCATE_MEMORY, MEMORY_LIMIT_EXCEEDED
  243: 'disk_full', // NOT_ENOUGH_SPACE
  210: 'network', 1000: 'network', // NETWORK_ERROR, POCO_EXCEPTION (Net exceptions)
  202: 'engine', 203: 'engine', 236: 'engine', 242: 'engine', 252: 'engine', 285: 'engine', 319: 'engine',
  394: 'engine', 425: 'engine', 439: 'engine', 573: 'os', 722: 'engine', 999: 'engine',
}

/** POCO_EXCEPTION, STD_EXCEPTION, UNKNOWN_EXCEPTION: a wrapped C++ exception, read by its text. */
const GENERIC_CODES = new Set([1000, 1001, 1002])

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

/** What a message says of the environment: an errno ClickHouse printed, or a known text. */
function kindOfMessage(message: string): InfraKind | undefined {
  const errno = /\berrno:? (\d+)/.exec(message)
  if (errno) return ERRNO[Number(errno[1])] ?? 'os'
  return MESSAGES.find(([re]) => re.test(message))?.[1]
}

/** One error (not its causes): the kind of infrastructure fault it is, 'data' when it is the work's own fault, or undefined when it says neither. */
function kindOfOne(e: unknown): InfraKind | 'data' | undefined {
  const x = e as { code?: unknown; name?: unknown; message?: unknown; retriable?: unknown; syscall?: unknown; dependency?: unknown }
  const message = typeof x.message === 'string' ? x.message : ''
  const ch = clickHouseCode(e)
  if (ch !== undefined) {
    if (DATA_CODES.has(ch)) return 'data'
    // An errno beats the code: CANNOT_OPEN_FILE or STD_EXCEPTION with errno 24 is descriptors.
    // The generic exceptions (POCO, STD, unknown) say what failed only in their text.
    const fromMessage = /\berrno:? \d+|strerror/.test(message) || GENERIC_CODES.has(ch) ? kindOfMessage(message) : undefined
    return fromMessage ?? ENV_CODES[ch] ?? 'data'
  }
  if (typeof x.code === 'string') {
    if (NODE_CODES[x.code]) return NODE_CODES[x.code]
    // Any other failed system call (EACCES on a data dir, EROFS, ...): the machine, not the record.
    if (typeof x.syscall === 'string' && /^E[A-Z0-9]+$/.test(x.code)) return 'os'
  }
  const name = typeof x.name === 'string' ? x.name : ''
  if (name.startsWith('KafkaJS')) {
    // A broker that refuses this message for good (too large, corrupt) is about the record.
    return name === 'KafkaJSProtocolError' && x.retriable === false ? undefined : 'broker'
  }
  if (name === 'DependencyUnavailableError') return x.dependency === 'store' ? 'store' : undefined
  if (name === 'MaxRetriesPerRequestError') return 'store'
  if (x.retriable === true) return 'broker'
  if (name === 'TimeoutError') return 'timeout'
  const status = httpStatus(e)
  if (status !== undefined && status >= 500) return 'network'
  return message ? kindOfMessage(message) : undefined
}

/** The kind of infrastructure fault `err` is (searching its causes), or null when it is the work's own fault. */
export function infraKind(err: unknown): InfraKind | null {
  let fallback: InfraKind | null = null
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const k = kindOfOne(e)
    if (k === 'data') return null
    if (k !== undefined) return k
    // A wrapper that names the engine as unavailable without a cause we recognise.
    if ((e as { name?: unknown }).name === 'DependencyUnavailableError') fallback = 'network'
  }
  return fallback
}

export function classifyError(err: unknown): ErrorClass {
  return infraKind(err) === null ? 'fatal' : 'retryable'
}

/** The message kept with a dead-lettered record, with the ClickHouse code when the message lacks it. */
export function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
  const code = clickHouseCode(err)
  return (code !== undefined && !message.includes(`Code: ${code}`) ? `Code: ${code}. ${message}` : message).slice(0, 1000)
}
