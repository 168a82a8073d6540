import type { ClickHouseClient } from '../core/clickhouse.ts'

/** Limits on the operator's ad-hoc SQL (POST /admin/sql): read-only, bounded in time, memory and rows. */
export const READ_ONLY_LIMITS = {
  readonly: '2',
  max_execution_time: 30,
  max_memory_usage: String(2 * 1024 ** 3),
  max_result_rows: '100000',
  result_overflow_mode: 'throw',
} as const

/**
 * The tables holding secrets or customer data by key hash, listed once: key hashes, webhook
 * signing secrets and their delivery log, MCP connection tokens, watchlists. Not readable through
 * ad-hoc SQL (/admin/sql, /clickhouse), and left out of the analysts' role on a cluster
 * (infra/clickhouse/analyst-access.sql). A table added with secrets goes here.
 */
export const SECRET_TABLES = ['api_keys', 'webhooks', 'webhook_deliveries', 'mcp_connections', 'watchlists'] as const

/**
 * Table functions that reach outside the database's own tables (files, URLs, other servers,
 * processes) or read tables by a pattern a name check cannot see (merge): refused.
 */
const OUTSIDE_FUNCTIONS = [
  'file', 'url', 'urlCluster', 'remote', 'remoteSecure', 'cluster', 'clusterAllReplicas', 's3', 's3Cluster', 'gcs', 'azureBlobStorage',
  'hdfs', 'hdfsCluster', 'mysql', 'postgresql', 'sqlite', 'mongodb', 'redis', 'jdbc', 'odbc', 'executable', 'input', 'merge',
  'iceberg', 'deltaLake', 'hudi', 'dictionary', 'mergeTreeIndex', 'mergeTreeParts', 'mergeTreeProjection', 'fileCluster', 'python',
]

/** A query refused before it runs, with the code ClickHouse itself uses for the reason. */
export class ReadOnlyRefusal extends Error {
  override name = 'ReadOnlyRefusal'
  constructor(
    /** ClickHouse's error code (164 READONLY, 497 ACCESS_DENIED, 62 SYNTAX_ERROR). */
    readonly code: number,
    /** ClickHouse's error name for the code. */
    readonly codeName: string,
    message: string,
  ) {
    super(message)
  }
}

const CODES = { READONLY: 164, ACCESS_DENIED: 497, SYNTAX_ERROR: 62 } as const
const refuse = (name: keyof typeof CODES, message: string) => new ReadOnlyRefusal(CODES[name], name, message)

/** The query with string literals and comments blanked (names inside them are not table reads). */
function code(query: string): string {
  return query
    .replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^'\\]|\\.|'')*'/g, "''")
}

export interface PreparedQuery {
  /** The statement to run: one read, its limits in a query-level SETTINGS clause, and its FORMAT. */
  sql: string
  /** The output format (the query's own FORMAT clause, else the default given). */
  format: string
}

export interface PrepareOptions {
  /** Settings applied to the query (limits, and a client's own settings under them). */
  settings: Record<string, string | number>
  /** Format when the query names none. */
  defaultFormat: string
  /** Queries a client sends on connecting that may read a harmless system table (normalized text). */
  probes?: ReadonlySet<string>
  /** The operator's SQL may read the system databases (the analysts' may not). */
  allowSystem?: boolean
}

/** Whitespace collapsed, a trailing `;` dropped: how probes are compared. */
export const normalizeSql = (query: string) => query.trim().replace(/;\s*$/, '').replace(/\s+/g, ' ').trim()

/**
 * Check one ad-hoc query and bound it. Only SELECT (or WITH … SELECT), SHOW, DESCRIBE, EXISTS
 * and EXPLAIN, one statement; no system or secret table, no table function that reaches
 * outside, no SETTINGS clause of its own (settings go beside the query, where they are capped)
 * and never the readonly setting. A SELECT runs as `SELECT * FROM (<query>) SETTINGS <limits>`:
 * anything but a read is a syntax error there, so ClickHouse itself enforces read-only also on
 * chDB, where `readonly` cannot be set per call (core/chdb-settings.ts).
 */
export function prepareReadOnly(query: string, opts: PrepareOptions): PreparedQuery {
  let body = query.trim().replace(/;\s*$/, '').trim()
  if (!body) throw refuse('SYNTAX_ERROR', 'Empty query.')
  const formatClause = /\s+FORMAT\s+([A-Za-z][A-Za-z0-9_]*)\s*$/i.exec(body)
  const format = formatClause ? formatClause[1]! : opts.defaultFormat
  if (formatClause) body = body.slice(0, formatClause.index).trim()
  const text = code(body)
  if (text.includes(';')) throw refuse('SYNTAX_ERROR', 'Multi-statements are not allowed: send one query.')
  const verb = /^\(*\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? ''
  const select = verb === 'SELECT' || verb === 'WITH'
  const catalogue = ['SHOW', 'DESCRIBE', 'DESC', 'EXISTS', 'EXPLAIN'].includes(verb)
  if (!select && !catalogue) {
    throw refuse('READONLY', `Cannot execute query in readonly mode: only SELECT (or WITH … SELECT), SHOW, DESCRIBE, EXISTS and EXPLAIN queries are allowed; ${verb || 'this statement'} is not a read.`)
  }
  const probe = opts.probes?.has(normalizeSql(body)) ?? false
  if (!probe && !opts.allowSystem && /\b(system|information_schema)\s*\.|`(system|information_schema)`\s*\.|"(system|information_schema)"\s*\./i.test(text)) {
    throw refuse('ACCESS_DENIED', 'Not enough privileges: the system and information_schema databases are not readable through this door (docs/tables.md lists the tables that are).')
  }
  if (verb === 'SHOW' && !opts.allowSystem) {
    // The catalogue only (SHOW PROCESSLIST, GRANTS, USERS … read the server's own state).
    if (!/^SHOW\s+(FULL\s+)?(TABLES|DATABASES|COLUMNS|CREATE(\s+(TABLE|VIEW))?)\b/i.test(text)) {
      throw refuse('ACCESS_DENIED', 'Not enough privileges: SHOW answers TABLES, DATABASES, COLUMNS and CREATE TABLE here.')
    }
    if (/\b(FROM|IN)\s+[`"]?(system|information_schema)\b/i.test(text)) {
      throw refuse('ACCESS_DENIED', 'Not enough privileges: the system databases are not readable through this door.')
    }
  }
  const secret = SECRET_TABLES.find((t) => new RegExp(`\\b${t}\\b`, 'i').test(text))
  if (secret) {
    throw refuse('ACCESS_DENIED', `Not enough privileges: ${secret} holds secrets or customer data (${SECRET_TABLES.join(', ')} are not readable through ad-hoc SQL).`)
  }
  const outside = OUTSIDE_FUNCTIONS.find((f) => new RegExp(`\\b${f}\\s*\\(`, 'i').test(text))
  if (outside) throw refuse('ACCESS_DENIED', `Not enough privileges: the table function ${outside}() is not available here.`)
  if (!probe && /\breadonly\b/i.test(text)) throw refuse('READONLY', "Cannot modify 'readonly' setting in readonly mode.")
  if (/\bSETTINGS\s+[A-Za-z_]\w*\s*=/i.test(text)) throw refuse('READONLY', 'A SETTINGS clause is not accepted in the query: pass settings as parameters beside it (they are capped by your limits).')
  const settings = Object.entries(opts.settings)
    .map(([k, v]) => `${k} = ${typeof v === 'number' ? v : `'${String(v).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`}`)
    .join(', ')
  const sql = select ? `SELECT * FROM (${body}\n) SETTINGS ${settings} FORMAT ${format}` : `${body} FORMAT ${format}`
  return { sql, format }
}

/** Run one read-only query for the operator (POST /admin/sql) and answer its rows. */
export async function runReadOnlySql(ch: ClickHouseClient, query: string): Promise<Record<string, unknown>[]> {
  const prepared = prepareReadOnly(query, { settings: READ_ONLY_LIMITS, defaultFormat: 'JSONEachRow', allowSystem: true })
  if (prepared.format !== 'JSONEachRow') throw new Error('FORMAT is not accepted here: /admin/sql answers JSON rows')
  const rs = await ch.exec({ query: prepared.sql })
  return (await streamText(rs.stream))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

/** A result stream read whole. */
export async function streamBytes(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array | string))
  return Buffer.concat(chunks)
}

const streamText = async (stream: AsyncIterable<unknown>) => (await streamBytes(stream)).toString('utf8')
