import type { EngineNames } from './engine-names.ts'
import { refuse } from './refusal.ts'
import { isAnalystTable, SECRET_TABLES } from './table-access.ts'

/**
 * What ad-hoc SQL may reach, decided on ClickHouse's own parse of the statement (the lines of
 * `EXPLAIN AST`, which names every table, table function, function and identifier exactly as
 * the engine resolved quoting and escapes: `\x77ebhooks` is printed `webhooks`). Allow-lists
 * where the set is small: the tables a caller may read, and table functions that only generate
 * rows. Ordinary functions are many and harmless but for a few that read files, reach hosts,
 * read dictionaries or reveal the host: those are refused by their canonical name, whatever
 * case or alias the query used.
 *
 * Every line is checked wherever it sits in the tree: a name that contains a newline prints as
 * two lines, so a crafted name can add lines but never hide the line of a real table or
 * function, which always starts with its node type.
 */

/** Table functions that produce rows from their arguments alone. */
const GENERATORS = new Set(['numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'values', 'generaterandom', 'generateseries', 'generate_series', 'primes', 'null', 'format'])

/** Ordinary functions that read files, reach hosts, read other tables by a string, or reveal the host (canonical, lowercase). */
const DENIED_FUNCTIONS = new Set([
  'file', 'identifier', 'getserversetting', 'getmergetreesetting', 'getmacro', 'hostname', 'fqdn', 'tcpport', 'getserverport',
  'serveruuid', 'displayname', 'buildid', 'getoskernelversion', 'filesystemavailable', 'filesystemcapacity', 'filesystemunreserved',
  'getclienthttpheader', 'showcertificate', 'hascolumnintable', 'catboostevaluate', 'logtrace', 'addresstoline',
  'addresstolinewithinlines', 'addresstosymbol', 'demangle', 'currentprofiles', 'enabledprofiles', 'defaultprofiles', 'currentroles',
  'enabledroles', 'defaultroles', 'zookeepersessionuptime', 'globalvariable', 'fuzzquery',
])
const DENIED_PREFIXES = ['dict', 'joinget', 'naivebayes']

/** Statement kinds a read may be (the root node of its tree). */
const READ_ROOTS = new Set(['SelectWithUnionQuery', 'SelectIntersectExceptQuery', 'ShowTables', 'ShowColumns', 'ShowCreateTableQuery', 'DescribeQuery', 'ExistsTableQuery', 'Explain'])

const SYSTEM_DATABASES = new Set(['system', 'information_schema'])

/**
 * The catalogue a BI tool browses (JDBC's getTables/getColumns/getTypeInfo, DBeaver's navigator,
 * Metabase's sync, Grafana's query builder), by database: readable only where the engine runs the
 * query as the analyst user, whose grants make ClickHouse itself list no table but the analyst
 * tables in them (the views of information_schema read system.tables and system.columns).
 */
const CATALOGUE: Record<string, ReadonlySet<string>> = {
  system: new Set(['databases', 'tables', 'columns', 'data_type_families', 'functions']),
  information_schema: new Set(['schemata', 'tables', 'columns', 'views', 'key_column_usage', 'referential_constraints', 'statistics']),
}

/** Whether `db.table` is a catalogue table (information_schema's names also in capitals, as ClickHouse has them). */
export function isCatalogueTable(db: string, table: string): boolean {
  const names = CATALOGUE[db === 'INFORMATION_SCHEMA' ? 'information_schema' : db]
  if (!names) return false
  return db === 'INFORMATION_SCHEMA' ? table === table.toUpperCase() && names.has(table.toLowerCase()) : names.has(table)
}

export interface QueryPolicy {
  /** The operator's SQL may read the system databases (an analyst's may not). */
  allowSystem: boolean
  /** The analyst may read the catalogue tables (isCatalogueTable): only where the engine filters them by the analyst's grants. */
  catalogue?: boolean
}

/** One node line of the tree: its type and the name printed after it (without alias or child count). */
export interface AstNode {
  depth: number
  type: string
  name: string
}

/** The node lines of `EXPLAIN AST` output. */
export function astNodes(lines: string[]): AstNode[] {
  return lines.map((line) => {
    const depth = line.length - line.trimStart().length
    const text = line.trimStart()
    const space = text.indexOf(' ')
    const type = space < 0 ? text : text.slice(0, space)
    let name = space < 0 ? '' : text.slice(space + 1)
    for (const cut of [' (alias ', ' (children ']) {
      const at = name.indexOf(cut)
      if (at >= 0) name = name.slice(0, at)
    }
    if (name.startsWith('(children ')) name = ''
    return { depth, type, name: name.trim() }
  })
}

/** The kind of statement the tree is, refusing what is not a read. */
export function statementKind(nodes: AstNode[]): string {
  const root = nodes[0]?.type ?? ''
  if (!READ_ROOTS.has(root) && root.startsWith('Show')) {
    // SHOW PROCESSLIST, GRANTS, USERS, SETTINGS … read the server's own state.
    throw refuse('ACCESS_DENIED', 'Not enough privileges: SHOW answers TABLES, DATABASES, COLUMNS and CREATE TABLE here.')
  }
  if (!READ_ROOTS.has(root)) {
    throw refuse('READONLY', 'Cannot execute query in readonly mode: only SELECT (or WITH … SELECT), SHOW TABLES/COLUMNS/CREATE TABLE, DESCRIBE, EXISTS and EXPLAIN queries are allowed here.')
  }
  return root
}

/**
 * Check every table, function and identifier of a statement's tree against the policy. Tables
 * named without a database that the engine does not know may be the query's own WITH names
 * (their names are not printed): the engine's table list is re-read once before they pass.
 */
export async function checkAst(nodes: AstNode[], names: EngineNames, policy: QueryPolicy): Promise<void> {
  const readable = (table: string) => (policy.allowSystem ? !(SECRET_TABLES as readonly string[]).includes(table) : isAnalystTable(table))
  const systemDb = (db: string) => SYSTEM_DATABASES.has(db.toLowerCase())
  const foreignDb = (db: string) => db !== names.database && (names.databases.has(db) || systemDb(db)) && !(policy.allowSystem && systemDb(db))
  const deniedTable = (table: string) =>
    refuse('ACCESS_DENIED', `Not enough privileges: ${table} is not readable through this door (docs/tables.md lists the tables that are; ${SECRET_TABLES.join(', ')} hold secrets or customer data).`)
  const deniedDb = (db: string) =>
    refuse('ACCESS_DENIED', `Not enough privileges: the database ${db} is not readable through this door; the service's tables are in ${names.database} (docs/tables.md).`)
  const catalogue = (db: string, table: string | undefined) => Boolean(policy.catalogue && table !== undefined && isCatalogueTable(db, table))
  const unknown: string[] = []

  for (const node of nodes) {
    if (node.type === 'Function') checkFunction(node.name, names)
    else if (node.type === 'TableIdentifier') {
      const parts = node.name.split('.')
      if (parts.length >= 2) {
        const [db, table] = [parts[0]!, parts.slice(1).join('.')]
        if (db === names.database) {
          if (!readable(table)) throw deniedTable(table)
        } else if (catalogue(db, table)) continue
        else if (foreignDb(db) || !(policy.allowSystem && systemDb(db))) throw deniedDb(db)
      } else if (!readable(node.name)) {
        if (names.tables.has(node.name)) throw deniedTable(node.name)
        unknown.push(node.name)
      }
    } else if (node.type === 'Identifier') {
      // A column, an alias, a table after IN or in a qualified name (`webhooks.url`), a database.
      const parts = node.name.split('.').filter(Boolean)
      const [first, second] = parts
      if (!first) continue
      // A catalogue column named in full, as JDBC writes them (`system.tables.database`).
      if (catalogue(first, second)) continue
      if (foreignDb(first)) throw deniedDb(first)
      if (first === names.database && second !== undefined && !readable(second) && names.tables.has(second)) throw deniedTable(second)
      if (!readable(first) && names.tables.has(first)) throw deniedTable(first)
    } else if (node.type === 'QueryParameter') {
      throw refuse('ACCESS_DENIED', 'Not enough privileges: a query parameter cannot name a table or a column here; bind values only.')
    }
  }
  if (unknown.length && (await names.refreshTables())) {
    for (const table of unknown) if (names.tables.has(table)) throw deniedTable(table)
  }
}

function checkFunction(name: string, names: EngineNames): void {
  const lower = name.toLowerCase()
  const canonical = names.canonical(lower)
  const tableOnly = (names.tableFunctions.has(lower) || names.tableFunctions.has(canonical)) && !names.functions.has(lower)
  if (tableOnly) {
    if (!GENERATORS.has(lower) && !GENERATORS.has(canonical)) {
      throw refuse('ACCESS_DENIED', `Not enough privileges: the table function ${name}() is not available here; only functions that generate rows (${[...GENERATORS].join(', ')}) are.`)
    }
    return
  }
  if (DENIED_FUNCTIONS.has(canonical) || DENIED_FUNCTIONS.has(lower) || DENIED_PREFIXES.some((p) => canonical.startsWith(p) || lower.startsWith(p))) {
    throw refuse('ACCESS_DENIED', `Not enough privileges: the function ${name}() reads files, hosts, dictionaries or the server's own settings and is not available here.`)
  }
}

/** Settings a client may not pass beside a query: they read or write schema files, or unlock introspection. */
export function deniedSetting(name: string): boolean {
  return /^(format_schema|format_template|output_format_schema|allow_introspection_functions|allow_ddl|readonly$|priority$|workload$)/.test(name)
}

/** Output formats that read a schema file named by a setting. */
export function deniedFormat(format: string): boolean {
  return /^(protobuf|capnproto|template)/i.test(format)
}
