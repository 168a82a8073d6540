import { queryRows, type ClickHouseClient } from '../core/clickhouse.ts'

/**
 * The names the SQL door's policy resolves against, read from the engine itself: which
 * databases and tables exist, which names are table functions, and what each function name
 * (any case, any alias) stands for. Functions never change while the engine runs and are read
 * once; tables are re-read on demand (a name the policy does not know), at most every few
 * seconds.
 */
export interface EngineNames {
  /** The service's database (the one unqualified names resolve in). */
  database: string
  /** Every database of the engine. */
  databases: ReadonlySet<string>
  /** Every table, view and dictionary name in the service's database. */
  tables: ReadonlySet<string>
  /** Lowercase names of every table function. */
  tableFunctions: ReadonlySet<string>
  /** Lowercase names of every ordinary function. */
  functions: ReadonlySet<string>
  /** The lowercase name a function name stands for (aliases followed). */
  canonical(name: string): string
  /** Re-read the tables when a name is unknown; answers whether anything changed. */
  refreshTables(): Promise<boolean>
}

const TABLES_MIN_AGE_MS = 2_000

/** Read the engine's names once for a client; later calls answer the same object. */
export function engineNames(ch: ClickHouseClient): Promise<EngineNames> {
  let loaded = cache.get(ch)
  if (!loaded) {
    loaded = load(ch).catch((err) => {
      cache.delete(ch)
      throw err
    })
    cache.set(ch, loaded)
  }
  return loaded
}

const cache = new WeakMap<ClickHouseClient, Promise<EngineNames>>()

async function load(ch: ClickHouseClient): Promise<EngineNames> {
  const [{ database }] = await queryRows<{ database: string }>(ch, 'SELECT currentDatabase() AS database')
  const fns = await queryRows<{ name: string; alias_to: string }>(ch, 'SELECT name, alias_to FROM system.functions')
  const tfs = await queryRows<{ name: string }>(ch, 'SELECT name FROM system.table_functions')
  const aliasOf = new Map(fns.filter((f) => f.alias_to).map((f) => [f.name.toLowerCase(), f.alias_to.toLowerCase()]))
  let tables = new Set<string>()
  let databases = new Set<string>()
  let readAt = 0
  const readTables = async () => {
    const dbs = await queryRows<{ name: string }>(ch, 'SELECT name FROM system.databases')
    const ts = await queryRows<{ name: string }>(ch, 'SELECT name FROM system.tables WHERE database = currentDatabase()')
    const changed = ts.length !== tables.size || dbs.length !== databases.size || ts.some((t) => !tables.has(t.name))
    databases = new Set(dbs.map((d) => d.name))
    tables = new Set(ts.map((t) => t.name))
    readAt = Date.now()
    return changed
  }
  await readTables()
  const names: EngineNames = {
    database,
    get databases() {
      return databases
    },
    get tables() {
      return tables
    },
    tableFunctions: new Set(tfs.map((t) => t.name.toLowerCase())),
    functions: new Set(fns.map((f) => f.name.toLowerCase())),
    canonical(name) {
      let n = name.toLowerCase()
      // An alias may point at another alias; a few steps reach the function itself.
      for (let i = 0; i < 4 && aliasOf.has(n); i++) n = aliasOf.get(n)!
      return n
    },
    async refreshTables() {
      if (Date.now() - readAt < TABLES_MIN_AGE_MS) return false
      return readTables()
    },
  }
  return names
}
