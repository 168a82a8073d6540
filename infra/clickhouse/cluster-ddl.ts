/**
 * The ClickHouse cluster DDL, generated from sql/migrations (the single-node schema the embedded
 * mode and a single server run) rather than kept as a second copy by hand.
 *
 *   npx tsx infra/clickhouse/cluster-ddl.ts [--cluster NAME] [--database DB] [--out FILE]
 *
 * Each migration statement becomes its cluster form, in order, so an existing cluster is
 * upgraded by the statements of the migrations it lacks exactly as a single server is:
 *
 * - a table `t` becomes `t_local` (Replicated*MergeTree, ON CLUSTER, path `{uuid}/{shard}`,
 *   `non_replicated_deduplication_window` becoming `replicated_deduplication_window`) plus `t`,
 *   a Distributed table over it, sharded by token or wallet (see `shardingOf`);
 * - a materialized view is created on every shard and fires on inserts into the local table it
 *   reads; it writes into the local target when both are sharded by the same column it passes
 *   through, otherwise into the Distributed target, which routes each row to its shard;
 * - views, drops, renames and alters run ON CLUSTER on the tables they concern; backfills
 *   (INSERT … SELECT) run once through the Distributed tables;
 * - `schema_migrations` is created the same way and records every migration, so a process
 *   started with CLICKHOUSE_URL against the cluster finds its migrations applied.
 *
 * A statement of a kind it does not know makes it throw, naming the migration: the test
 * (test/unit/cluster-ddl.test.ts) then fails until the generator learns it.
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { readMigrations, type Migration } from '../../sql/migrate.ts'

export interface ClusterOptions {
  /** The cluster name in the servers' remote_servers (macro-free). Default 'svc'. */
  cluster?: string
  /** The database the tables live in (Distributed tables name it). Default 'default'. */
  database?: string
}

interface TableInfo {
  kind: 'table' | 'view'
  columns: string[]
  orderBy: string[]
  /** The engine clause of the local table, as emitted (for `CREATE … AS` copies). */
  engine?: string
  /** The column rows are sharded by, or null when by a hash of the whole sorting key. */
  shardColumn: string | null
  shardKey?: string
}

/** Columns that name an entity; a table is sharded by the first it is sorted by. */
const ENTITY_COLUMNS = ['token', 'author', 'trader', 'account', 'deployer', 'wallet', 'address', 'handle', 'pool', 'provider', 'key_hash', 'token_hash', 'client_id']
/** Column operations that the Distributed table must follow as well. */
const COLUMN_OP = /^(ADD|DROP|MODIFY|RENAME|COMMENT|CLEAR)\s+COLUMN\b/i

export interface GeneratedStatement {
  migration: string
  sql: string
}

export function generateClusterDdl(migrations: Migration[] = readMigrations(), options: ClusterOptions = {}): GeneratedStatement[] {
  const cluster = options.cluster ?? 'svc'
  const database = options.database ?? 'default'
  const on = `ON CLUSTER '${cluster}'`
  const tables = new Map<string, TableInfo>()
  const out: GeneratedStatement[] = []
  let current = 'schema_migrations'
  const emit = (sql: string): void => void out.push({ migration: current, sql })

  function distributed(name: string, info: TableInfo): string {
    return `CREATE TABLE IF NOT EXISTS ${name} ${on} AS ${name}_local\nENGINE = Distributed('${cluster}', '${database}', '${name}_local', ${info.shardKey})`
  }

  function createTable(statement: string): void {
    const head = /^CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?(\w+)\s*/i.exec(statement)!
    const name = head[2]!
    let rest = statement.slice(head[0].length)
    let columns: string[]
    let body: string
    let copyOf: TableInfo | undefined
    let copyName: string | undefined
    const asOther = /^AS\s+(\w+)\s*/i.exec(rest)
    if (asOther) {
      copyName = asOther[1]!
      copyOf = tables.get(copyName)
      if (!copyOf || copyOf.kind !== 'table') throw new Error(`CREATE TABLE ${name} AS ${copyName}: ${copyName} is not a table created before`)
      columns = [...copyOf.columns]
      rest = rest.slice(asOther[0].length)
      body = ''
    } else {
      if (!rest.startsWith('(')) throw new Error(`CREATE TABLE ${name}: expected a column list or AS <table>`)
      const close = matchingParen(rest, 0)
      body = rest.slice(0, close + 1)
      columns = splitTopLevel(rest.slice(1, close))
        .map((c) => c.trim())
        .filter((c) => !/^(INDEX|PROJECTION|CONSTRAINT)\b/i.test(c))
        .map((c) => /^`?(\w+)`?/.exec(c)![1]!)
      rest = rest.slice(close + 1).trim()
    }
    const engineMatch = /^ENGINE\s*=\s*(\w+)\s*/i.exec(rest)
    let engine: string
    let tail: string
    if (engineMatch) {
      let args = ''
      let after = rest.slice(engineMatch[0].length)
      if (after.startsWith('(')) {
        const close = matchingParen(after, 0)
        args = after.slice(1, close).trim()
        after = after.slice(close + 1)
      }
      engine = replicated(engineMatch[1]!, args)
      tail = after.trim()
    } else if (copyOf) {
      engine = copyOf.engine!
      tail = rest.trim()
    } else {
      throw new Error(`CREATE TABLE ${name}: no ENGINE`)
    }
    const orderBy = orderByOf(tail) ?? (copyOf && !/ORDER\s+BY/i.test(tail) ? copyOf.orderBy : [])
    const info: TableInfo = { kind: 'table', columns, orderBy, engine, ...shardingOf(columns, orderBy, engine) }
    tables.set(name, info)
    const source = copyName ? `AS ${copyName}_local\n` : `${body}\n`
    emit(`CREATE TABLE IF NOT EXISTS ${name}_local ${on}\n${source}ENGINE = ${engine}${tail ? `\n${replicatedSettings(tail)}` : ''}`)
    emit(distributed(name, info))
  }

  function createMaterializedView(statement: string): void {
    const m = /^CREATE\s+MATERIALIZED\s+VIEW\s+(IF\s+NOT\s+EXISTS\s+)?(\w+)\s+TO\s+(\w+)\s*(\([\s\S]*?\))?\s*AS\s+([\s\S]+)$/i.exec(statement)
    if (!m) throw new Error(`a materialized view without TO <table> cannot be generated for a cluster: ${statement.slice(0, 80)}`)
    const [, , name, target, columns, select] = m
    const from = /\bFROM\s+(\w+)/i.exec(select!)
    const source = from ? tables.get(from[1]!) : undefined
    const targetInfo = tables.get(target!)
    if (!from || !source || source.kind !== 'table') throw new Error(`materialized view ${name}: its first FROM is not a table created before`)
    if (!targetInfo || targetInfo.kind !== 'table') throw new Error(`materialized view ${name}: target ${target} is not a table created before`)
    const col = source.shardColumn
    const selectList = select!.slice(0, from.index)
    const passesThrough = col !== null && (/\bSELECT\s+\*/i.test(selectList) || (new RegExp(`\\b${col}\\b`).test(selectList) && !new RegExp(`\\bAS\\s+${col}\\b`, 'i').test(selectList)))
    const local = col !== null && col === targetInfo.shardColumn && passesThrough
    const localSelect = select!.slice(0, from.index) + `FROM ${from[1]}_local` + select!.slice(from.index + from[0].length)
    tables.set(name!, { kind: 'view', columns: [], orderBy: [], shardColumn: null })
    emit(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${name} ${on} TO ${local ? `${target}_local` : target}${columns ? ` ${columns}` : ''} AS\n${localSelect}`)
  }

  function alterTable(statement: string): void {
    const m = /^ALTER\s+TABLE\s+(\w+)\s+([\s\S]+)$/i.exec(statement)!
    const [, name, opsText] = m
    const info = tables.get(name!)
    if (info?.kind === 'view') {
      if (/MODIFY\s+QUERY/i.test(opsText!)) throw new Error(`ALTER TABLE ${name} MODIFY QUERY: not generated for a cluster yet`)
      emit(`ALTER TABLE ${name} ${on} ${opsText}`)
      return
    }
    const ops = splitTopLevel(opsText!).map((o) => o.trim())
    for (const op of ops) {
      const added = /^ADD\s+COLUMN\s+(IF\s+NOT\s+EXISTS\s+)?`?(\w+)`?/i.exec(op)
      if (added && info && !info.columns.includes(added[2]!)) info.columns.push(added[2]!)
    }
    emit(`ALTER TABLE ${name}_local ${on} ${ops.map(replicatedSettings).join(', ')}`)
    const columnOps = ops.filter((o) => COLUMN_OP.test(o))
    if (columnOps.length) emit(`ALTER TABLE ${name} ${on} ${columnOps.join(', ')}`)
  }

  function renameTables(statement: string): void {
    const pairs = splitTopLevel(statement.replace(/^RENAME\s+TABLE\s+/i, '')).map((p) => {
      const m = /^\s*(\w+)\s+TO\s+(\w+)\s*$/i.exec(p)
      if (!m) throw new Error(`RENAME TABLE: cannot read ${p}`)
      return [m[1]!, m[2]!] as const
    })
    const before = new Map(tables)
    const views = pairs.filter(([a]) => before.get(a)?.kind === 'view')
    const data = pairs.filter(([a]) => before.get(a)?.kind !== 'view')
    if (views.length) emit(`RENAME TABLE ${views.map(([a, b]) => `${a} TO ${b}`).join(', ')} ${on}`)
    if (!data.length) return
    emit(`RENAME TABLE ${data.map(([a, b]) => `${a}_local TO ${b}_local`).join(', ')} ${on}`)
    for (const [a] of pairs) tables.delete(a)
    for (const [a, b] of pairs) tables.set(b, before.get(a)!)
    // A Distributed table names its local table: it follows the local name, not its own.
    const from = new Set(data.map(([a]) => a))
    const to = new Set(data.map(([, b]) => b))
    for (const a of from) if (!to.has(a)) emit(`DROP TABLE IF EXISTS ${a} ${on} SYNC`)
    for (const b of to) if (!from.has(b)) emit(distributed(b, tables.get(b)!))
  }

  function drop(statement: string): void {
    const m = /^DROP\s+(TABLE|VIEW)\s+(IF\s+EXISTS\s+)?(\w+)\s*$/i.exec(statement)
    if (!m) throw new Error(`DROP: cannot read ${statement.slice(0, 80)}`)
    const name = m[3]!
    const info = tables.get(name)
    tables.delete(name)
    if (m[1]!.toUpperCase() === 'VIEW' || info?.kind === 'view') {
      emit(`DROP ${m[1]!.toUpperCase()} IF EXISTS ${name} ${on} SYNC`)
      return
    }
    emit(`DROP TABLE IF EXISTS ${name} ${on} SYNC`)
    emit(`DROP TABLE IF EXISTS ${name}_local ${on} SYNC`)
  }

  function translate(statement: string): void {
    if (/^CREATE\s+TABLE\b/i.test(statement)) return createTable(statement)
    if (/^CREATE\s+MATERIALIZED\s+VIEW\b/i.test(statement)) return createMaterializedView(statement)
    if (/^CREATE\s+(OR\s+REPLACE\s+)?VIEW\b/i.test(statement)) {
      const name = /VIEW\s+(IF\s+NOT\s+EXISTS\s+)?(\w+)/i.exec(statement)![2]!
      tables.set(name, { kind: 'view', columns: [], orderBy: [], shardColumn: null })
      return emit(statement.replace(/^(CREATE\s+(OR\s+REPLACE\s+)?VIEW\s+(IF\s+NOT\s+EXISTS\s+)?\w+)/i, `$1 ${on}`))
    }
    if (/^ALTER\s+TABLE\b/i.test(statement)) return alterTable(statement)
    if (/^RENAME\s+TABLE\b/i.test(statement)) return renameTables(statement)
    if (/^DROP\s+(TABLE|VIEW)\b/i.test(statement)) return drop(statement)
    // A backfill: once, from one node, through the Distributed tables.
    if (/^INSERT\s+INTO\b/i.test(statement)) return emit(statement)
    // Rows taken out on every node: a lightweight delete of the local tables.
    if (/^DELETE\s+FROM\s+(\w+)/i.test(statement)) return emit(statement.replace(/^DELETE\s+FROM\s+(\w+)/i, `DELETE FROM $1_local ${on}`))
    if (/^OPTIMIZE\s+TABLE\s+(\w+)/i.test(statement)) return emit(statement.replace(/^OPTIMIZE\s+TABLE\s+(\w+)/i, `OPTIMIZE TABLE $1_local ${on}`))
    throw new Error(`a statement the cluster generator does not know: ${statement.slice(0, 100)}`)
  }

  createTable(`CREATE TABLE IF NOT EXISTS schema_migrations
(version UInt32, name String, checksum String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))
ENGINE = ReplacingMergeTree ORDER BY version`)
  for (const m of migrations) {
    current = m.name
    for (const s of m.statements) {
      try {
        translate(s.trim())
      } catch (err) {
        throw new Error(`${m.name}: ${err instanceof Error ? err.message : String(err)}`)
      }
    }
  }
  current = 'schema_migrations'
  if (migrations.length) {
    emit(`INSERT INTO schema_migrations (version, name, checksum) VALUES\n${migrations.map((m) => `(${m.version}, '${m.name}', '${m.checksum}')`).join(',\n')}`)
  }
  return out
}

/** The engine of a local table: a *MergeTree becomes Replicated*MergeTree on `{uuid}/{shard}`. */
function replicated(engine: string, args: string): string {
  if (!/MergeTree$/.test(engine) || engine.startsWith('Replicated')) return args ? `${engine}(${args})` : engine
  return `Replicated${engine}('/clickhouse/tables/{uuid}/{shard}', '{replica}'${args ? `, ${args}` : ''})`
}

/** Deduplication of retried inserts: the replicated window replaces the non-replicated one. */
function replicatedSettings(text: string): string {
  return text.replace(/\bnon_replicated_deduplication_window\b/g, 'replicated_deduplication_window')
}

function orderByOf(tail: string): string[] | null {
  const m = /ORDER\s+BY\s+(\([^)]*\)|\w+)/i.exec(tail)
  if (!m) return null
  return m[1]!.replace(/^\(|\)$/g, '').split(',').map((c) => c.trim()).filter(Boolean)
}

/**
 * How a table is sharded. Rows agreeing on the sorting key must meet on one shard (Replacing,
 * Summing and Aggregating merges, and FINAL, work within a shard): so by the first entity column
 * (token, then wallet-like ones) the table is sorted by; a table of immutable facts (MergeTree,
 * or ReplacingMergeTree without a version, where a key's rows are identical) by its token or
 * wallet column; otherwise by a hash of the whole sorting key.
 */
function shardingOf(columns: string[], orderBy: string[], engine: string): Pick<TableInfo, 'shardColumn' | 'shardKey'> {
  const sorted = orderBy.find((c) => ENTITY_COLUMNS.includes(c))
  const facts = /^Replicated(MergeTree|ReplacingMergeTree)\('[^']*', '[^']*'\)$/.test(engine)
  const column = sorted ?? (facts ? ENTITY_COLUMNS.find((c) => columns.includes(c)) : undefined)
  if (column) return { shardColumn: column, shardKey: `cityHash64(${column})` }
  const key = orderBy.filter((c) => c !== 'tuple()')
  return { shardColumn: null, shardKey: key.length ? `cityHash64(${key.join(', ')})` : 'rand()' }
}

/**
 * Visit each character of `text` from `from` that is outside quotes, with the parenthesis depth
 * after it; `visit` returning true stops the walk and returns that index (else -1).
 */
function walkUnquoted(text: string, from: number, visit: (ch: string, i: number, depth: number) => boolean): number {
  let depth = 0
  let quote: string | null = null
  for (let i = from; i < text.length; i++) {
    const ch = text[i]!
    if (quote) {
      if (ch === '\\') i++
      else if (ch === quote) quote = null
      continue
    }
    if (ch === "'" || ch === '"' || ch === '`') quote = ch
    else if (ch === '(') depth++
    else if (ch === ')') depth--
    if (visit(ch, i, depth)) return i
  }
  return -1
}

function matchingParen(text: string, open: number): number {
  const close = walkUnquoted(text, open, (ch, _i, depth) => ch === ')' && depth === 0)
  if (close < 0) throw new Error(`unbalanced parentheses in ${text.slice(open, open + 60)}`)
  return close
}

/** Split on commas outside parentheses and quotes. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = []
  let start = 0
  walkUnquoted(text, 0, (ch, i, depth) => {
    if (ch === ',' && depth === 0) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
    return false
  })
  parts.push(text.slice(start))
  return parts.filter((p) => p.trim())
}

/** The whole file: a header, then each migration's statements in order. */
export function renderClusterDdl(statements: GeneratedStatement[], options: ClusterOptions = {}): string {
  const lines = [
    `-- ClickHouse cluster DDL for cluster '${options.cluster ?? 'svc'}', database '${options.database ?? 'default'}'.`,
    '-- Generated by infra/clickhouse/cluster-ddl.ts from sql/migrations: do not edit, regenerate.',
    '-- Each server needs the macros {shard} and {replica}, the cluster in remote_servers, and Keeper.',
    '',
  ]
  let migration = ''
  for (const s of statements) {
    if (s.migration !== migration) lines.push(`-- ${(migration = s.migration)}`)
    lines.push(`${s.sql};`, '')
  }
  return lines.join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { cluster: { type: 'string' }, database: { type: 'string' }, out: { type: 'string' } } })
  const options = { cluster: values.cluster, database: values.database }
  const text = renderClusterDdl(generateClusterDdl(readMigrations(), options), options)
  if (values.out) writeFileSync(values.out, text)
  else process.stdout.write(text)
}
