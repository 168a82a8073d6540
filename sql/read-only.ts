import type { ClickHouseClient } from '../core/clickhouse.ts'
import { engineNames } from './engine-names.ts'
import { astNodes, checkAst, deniedFormat, statementKind, type AstNode, type QueryPolicy } from './query-policy.ts'
import { ReadOnlyRefusal, refuse } from './refusal.ts'

export { ReadOnlyRefusal } from './refusal.ts'
export { SECRET_TABLES } from './table-access.ts'

/** Limits on the operator's ad-hoc SQL (POST /admin/sql): read-only, bounded in time, memory and rows. */
export const READ_ONLY_LIMITS = {
  readonly: '2',
  max_execution_time: 30,
  max_memory_usage: String(2 * 1024 ** 3),
  max_result_rows: '100000',
  result_overflow_mode: 'throw',
} as const

export interface PreparedQuery {
  /** The statement to run: one read, its limits in a query-level SETTINGS clause, and its FORMAT. */
  sql: string
  /** The output format (the query's own FORMAT clause, else the default given). */
  format: string
}

export interface PrepareOptions extends Partial<QueryPolicy> {
  /** Settings applied to the query (limits, and a client's own settings under them). */
  settings: Record<string, string | number>
  /** Format when the query names none. */
  defaultFormat: string
  /** Values bound to the query's `{name:Type}` placeholders (checked as the engine substitutes them). */
  params?: Record<string, unknown>
  /** Queries a client sends on connecting that may read a harmless system table (normalized text). */
  probes?: ReadonlySet<string>
}

/** Whitespace collapsed, a trailing `;` dropped: how probes are compared. */
export const normalizeSql = (query: string) => query.trim().replace(/;\s*$/, '').replace(/\s+/g, ' ').trim()

/**
 * Check one ad-hoc query on the engine's own parse and bound it (sql/query-policy.ts decides
 * what it may reach). A SELECT runs as `SELECT * FROM (<query>) SETTINGS <limits>`: anything
 * but a read is a syntax error there, so ClickHouse itself enforces read-only also on chDB,
 * where `readonly` cannot be set per call (core/chdb-settings.ts). The statement checked is the
 * one that runs, with the same parameters: nothing of the caller's text is ever run around it.
 */
export async function prepareReadOnly(ch: ClickHouseClient, query: string, opts: PrepareOptions): Promise<PreparedQuery> {
  const { body, format: named, verb } = await splitStatement(ch, query)
  const format = named ?? opts.defaultFormat
  if (deniedFormat(format)) throw refuse('ACCESS_DENIED', `Not enough privileges: the ${format} format reads a schema file and is not available here.`)
  const select = verb === 'SELECT' || verb === 'WITH' || verb === '('
  if (!select && !['SHOW', 'DESCRIBE', 'DESC', 'EXISTS', 'EXPLAIN'].includes(verb)) {
    throw refuse('READONLY', `Cannot execute query in readonly mode: only SELECT (or WITH … SELECT), SHOW, DESCRIBE, EXISTS and EXPLAIN queries are allowed; ${verb || 'this statement'} is not a read.`)
  }
  const settings = Object.entries(opts.settings)
    .map(([k, v]) => `${k} = ${typeof v === 'number' ? v : `'${String(v).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`}`)
    .join(', ')
  const core = select ? `SELECT * FROM (${body}\n) SETTINGS ${settings}` : body
  if (!opts.probes?.has(normalizeSql(body))) {
    const nodes = await explainAst(ch, core, opts.params)
    const kind = statementKind(nodes)
    if (!select && kind.startsWith('Select')) throw refuse('READONLY', `Cannot execute query in readonly mode: ${verb} is not a read.`)
    if (nodes.filter((n) => n.type === 'Set').length > (select ? 1 : 0)) {
      throw refuse('READONLY', 'A SETTINGS clause is not accepted in the query (readonly and the limits are fixed here): pass settings as parameters beside it (they are capped by your limits).')
    }
    // A top-level literal beside the statement is its INTO OUTFILE target.
    if (nodes.some((n) => n.depth === 1 && n.type === 'Literal')) throw refuse('READONLY', 'INTO OUTFILE is not available here: the result comes back in the response.')
    if (kind === 'ShowColumns') nodes.push(...showColumnsTable(body))
    await checkAst(nodes, await engineNames(ch), { allowSystem: opts.allowSystem ?? false, catalogue: opts.catalogue ?? false })
  }
  return { sql: `${core} FORMAT ${format}`, format }
}

interface Token {
  type: string
  begin: number
  end: number
}

/**
 * One statement, split by ClickHouse's own lexer (tokenizeQuery, the query passed as a value):
 * its text without a trailing `;` or FORMAT clause, the format named, and its first word. A
 * second statement is refused here, before anything else sees the text: the embedded engine
 * would run every statement of a multi-statement text, an EXPLAIN's included.
 */
async function splitStatement(ch: ClickHouseClient, query: string): Promise<{ body: string; format?: string; verb: string }> {
  const bytes = Buffer.from(query, 'utf8')
  const rs = await ch.query({ query: 'SELECT arrayJoin(tokenizeQuery({q:String})) AS t', query_params: { q: query }, format: 'JSONEachRow' })
  const tokens = (await rs.json<{ t: { type: string; begin: string; end: string } }>()).map(({ t }) => ({ type: t.type, begin: Number(t.begin), end: Number(t.end) }))
  const text = (t: Token) => bytes.subarray(t.begin, t.end).toString('utf8')
  const broken = tokens.find((t) => t.type.startsWith('Error'))
  if (broken) throw refuse('SYNTAX_ERROR', `Syntax error at position ${broken.begin}: ${broken.type.replace(/^Error/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}.`)
  const significant = tokens.filter((t) => t.type !== 'Whitespace' && t.type !== 'Comment')
  while (significant.at(-1)?.type === 'Semicolon') significant.pop()
  if (!significant.length) throw refuse('SYNTAX_ERROR', 'Empty query.')
  if (significant.some((t) => t.type === 'Semicolon')) throw refuse('SYNTAX_ERROR', 'Multi-statements are not allowed: send one query.')
  let last = significant.at(-1)!
  let format: string | undefined
  const [keyword, name] = significant.slice(-2)
  if (significant.length > 2 && keyword?.type === 'BareWord' && text(keyword).toUpperCase() === 'FORMAT' && name?.type === 'BareWord') {
    format = text(name)
    last = significant.at(-3)!
  }
  const first = significant[0]!
  const verb = first.type === 'OpeningRoundBracket' ? '(' : text(first).toUpperCase()
  return { body: bytes.subarray(0, last.end).toString('utf8'), format, verb }
}

/**
 * The statement's tree as the engine parses it. EXPLAIN AST runs nothing (no table is read,
 * no function called, no host reached); its output format comes from `default_format`, since
 * a FORMAT clause would belong to the statement explained.
 */
async function explainAst(ch: ClickHouseClient, sql: string, params?: Record<string, unknown>): Promise<AstNode[]> {
  let text: string
  try {
    const rs = await ch.exec({ query: `EXPLAIN AST ${sql}`, query_params: params, clickhouse_settings: { default_format: 'JSONEachRow' } })
    text = (await streamBytes(rs.stream)).toString('utf8')
  } catch (err) {
    const e = err as { code?: unknown; type?: unknown; message?: unknown }
    // The engine's own verdict on the text (a syntax error, a parameter not bound) stands as it is.
    if (typeof e.code === 'string' && /^\d+$/.test(e.code) && typeof e.message === 'string') {
      throw new ReadOnlyRefusal(Number(e.code), typeof e.type === 'string' && e.type ? e.type : 'SYNTAX_ERROR', e.message.replace(/^Code: \d+\. DB::Exception: /, '').replace(/\s*\(version [^)]*\)\s*$/, '').replace(/\s*\([A-Z_]+\)\s*$/, ''))
    }
    throw err
  }
  const lines = text
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { explain: string }).explain)
  return astNodes(lines)
}

/** SHOW COLUMNS prints no table in its tree: read it from the text, with ClickHouse's quoting. */
function showColumnsTable(body: string): AstNode[] {
  const ident = String.raw`([A-Za-z_][A-Za-z0-9_]*|\x60(?:[^\x60\\]|\\.|\x60\x60)*\x60|"(?:[^"\\]|\\.|"")*")`
  const m = new RegExp(String.raw`^SHOW\s+(?:FULL\s+|EXTENDED\s+)*(?:COLUMNS|FIELDS)\s+(?:FROM|IN)\s+${ident}(?:\s*\.\s*${ident})?(?:\s+(?:FROM|IN)\s+${ident})?(?:\s+(?:NOT\s+)?I?LIKE\s+'(?:[^'\\]|\\.|'')*')?(?:\s+LIMIT\s+\d+)?$`, 'i').exec(body)
  if (!m) throw refuse('ACCESS_DENIED', 'Not enough privileges: write SHOW COLUMNS FROM <table> [FROM <database>] here, or DESCRIBE TABLE <table>.')
  const [a, b, db] = [m[1], m[2], m[3]].map((s) => (s === undefined ? undefined : unquoteIdentifier(s)))
  const name = b !== undefined ? `${a}.${b}` : db !== undefined ? `${db}.${a}` : a!
  return [{ depth: 0, type: 'TableIdentifier', name }]
}

/** An identifier as ClickHouse reads it: quotes removed, doubled quotes and backslash escapes decoded. */
export function unquoteIdentifier(token: string): string {
  const q = token[0]
  if (q !== '`' && q !== '"') return token
  const inner = token.slice(1, -1)
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0', a: '\x07', v: '\v', e: '\x1b' }
  return inner.replace(/\\x([0-9A-Fa-f]{2})|\\(.)|(``|"")/gs, (_m, hex: string | undefined, ch: string | undefined, dbl: string | undefined) =>
    hex ? String.fromCharCode(parseInt(hex, 16)) : dbl ? dbl[0]! : (simple[ch!] ?? ch!),
  )
}

/** Run one read-only query for the operator (POST /admin/sql) and answer its rows. */
export async function runReadOnlySql(ch: ClickHouseClient, query: string): Promise<Record<string, unknown>[]> {
  const prepared = await prepareReadOnly(ch, query, { settings: READ_ONLY_LIMITS, defaultFormat: 'JSONEachRow', allowSystem: true })
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
