import { createHash, randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { SQL_LIMITS } from '../../core/plans.ts'
import { ENGINE_PRIORITY, ENGINE_SERVICE_MAX_THREADS } from '../../core/engine-priority.ts'
import { analystGrantStatements } from '../../sql/analyst-access.ts'

/** The users the engine serves over HTTP, each with a password kept in credentials.json. */
export interface EngineCredentials {
  /** The service's roles: reads, writes, DDL (migrations), KILL QUERY. */
  svc: string
  /** The data team: reads only, without the secret tables, within SQL_LIMITS. */
  analyst: string
}

export interface EngineFiles {
  /** ClickHouse's data path: DATA_DIR/clickhouse, the same one the embedded engine opens. */
  clickhousePath: string
  configPath: string
  /** The engine's own log (information and up) and its errors only. */
  logPath: string
  errorLogPath: string
  /** The launcher's stdout and stderr: clickhouse-local prints its fatal errors there. */
  outputPath: string
  credentials: EngineCredentials
  /** credentials.json: the users' passwords (mode 0600). */
  credentialsPath: string
}

/**
 * The engine's files under DATA_DIR/engine: config.xml and users.xml (rewritten on each start,
 * from this code), credentials.json (made once, mode 0600) and the logs.
 *
 * Users live in users.xml because clickhouse-local has no writable access storage:
 * `CREATE USER` answers ACCESS_STORAGE_FOR_INSERTION_NOT_FOUND. And clickhouse-local runs its
 * own statements as `default` with an empty password, so `default` keeps no password; it is
 * reachable only from loopback and may do nothing but what the engine's own statement needs
 * (start the listeners, read system.numbers): no data.
 */
export function prepareEngineFiles(dataDir: string, database: string): EngineFiles {
  const dir = resolve(dataDir, 'engine')
  const clickhousePath = resolve(dataDir, 'clickhouse')
  mkdirSync(dir, { recursive: true })
  mkdirSync(clickhousePath, { recursive: true })
  const credentialsPath = join(dir, 'credentials.json')
  const credentials = loadCredentials(credentialsPath)
  const files: EngineFiles = {
    clickhousePath,
    configPath: join(dir, 'config.xml'),
    logPath: join(dir, 'engine.log'),
    errorLogPath: join(dir, 'engine.err.log'),
    outputPath: join(dir, 'engine.out'),
    credentials,
    credentialsPath,
  }
  const usersPath = join(dir, 'users.xml')
  writeFileSync(usersPath, usersXml(credentials, database), { mode: 0o600 })
  writeFileSync(files.configPath, configXml(files, usersPath))
  return files
}

function loadCredentials(path: string): EngineCredentials {
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as EngineCredentials
  const credentials = { svc: randomBytes(18).toString('base64url'), analyst: randomBytes(18).toString('base64url') }
  writeFileSync(path, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 })
  chmodSync(path, 0o600)
  return credentials
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

function configXml(files: EngineFiles, usersPath: string): string {
  return `<clickhouse>
  <logger>
    <log>${xml(files.logPath)}</log>
    <errorlog>${xml(files.errorLogPath)}</errorlog>
    <level>information</level>
    <size>20M</size>
    <count>3</count>
  </logger>
  <user_directories>
    <users_xml><path>${xml(usersPath)}</path></users_xml>
  </user_directories>
${Object.entries(ENGINE_SERVER_SETTINGS).map(([k, v]) => `  <${k}>${v}</${k}>\n`).join('')}  <merge_tree>
    <merge_selector_base>${MERGE_SELECTOR_BASE}</merge_selector_base>
  </merge_tree>
</clickhouse>
`
}

/**
 * How many parts of a table accumulate before they are merged (ClickHouse's default: 5). The
 * pipeline inserts a small part into each raw and view-target table per batch (a block every
 * 2 s), and ClickHouse counts a fixed cost of 5 MiB per part when it chooses a merge, so with the
 * default a table of a few MiB was rewritten whole every few batches: merges read 5-6 M rows a
 * minute on the default world and grew with the tables' size. At 12 a table holds up to about a
 * dozen parts and the merges read about 150 k rows a minute; the idle engine went from 32-44 % of a
 * core to 23-24 % (docs/measurements.md has the measurement). A ClickHouse cluster sets the same
 * in its server config (docs/operators.md).
 */
export const MERGE_SELECTOR_BASE = 12

/**
 * Server settings of the engine process that keep an idle engine quiet (chDB's library starts with
 * small pools and ClickHouse's defaults otherwise):
 *  - `asynchronous_metrics_update_period_s`: ClickHouse recomputes its asynchronous metrics (every
 *    table's parts, the process's files) each second by default; nothing here reads them
 *    (`system.asynchronous_metrics`), so once a minute is enough for an operator's look.
 *  - `background_schedule_pool_size`: chDB gives the schedule pool 2 threads, so at most one task
 *    of a kind ran at a time (80 % of the pool per kind) and every table's merge selection, woken
 *    by each insert, waited and logged "Temporarily pause scheduling of tasks" about 100 times a
 *    second on a live service (6,000 warnings a minute).
 * With both, the idle engine on the default world went from 25.4-28.4 % to 23.1-25.1 % of a core
 * (60 s windows, the same data dir) and the warnings to about 150 a minute. A cluster leaves its
 * servers' own values.
 */
export const ENGINE_SERVER_SETTINGS = { asynchronous_metrics_update_period_s: 60, background_schedule_pool_size: 4 } as const

/**
 * The service sends query parameters in the URL (@clickhouse/client), and some are arrays of a
 * batch's keys (pairs, tokens, legs) well over ClickHouse's default 128 KiB for one field
 * ("HTML Form Exception: Field value too long"). The HTTP request is parsed with the default
 * profile's settings, before the user is known, so the limits are raised here; a ClickHouse
 * cluster needs the same in its default profile.
 */
const HTTP_LIMITS = '<http_max_field_value_size>67108864</http_max_field_value_size><http_max_uri_size>67108864</http_max_uri_size>'

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')
const LOOPBACK = '<networks><ip>127.0.0.1</ip><ip>::1</ip></networks>'

function usersXml(credentials: EngineCredentials, database: string): string {
  const l = SQL_LIMITS
  // The same limits as the analyst-access DDL for a cluster (sql/analyst-access.ts): MAX lets
  // a client lower a limit, never raise it; CONST fixes a setting.
  const limits = { readonly: l.readonly, max_execution_time: l.max_execution_time, max_memory_usage: l.max_memory_usage, max_result_rows: l.max_result_rows, max_result_bytes: l.max_result_bytes, result_overflow_mode: l.result_overflow_mode, priority: l.priority }
  const constant = new Set(['readonly', 'result_overflow_mode', 'priority'])
  const profile = Object.entries(limits).map(([k, v]) => `<${k}>${v}</${k}>`).join('')
  const constraints = Object.entries(limits).map(([k, v]) => `<${k}>${constant.has(k) ? '<const/>' : `<max>${v}</max>`}</${k}>`).join('')
  // Table by table, the allow-list (sql/table-access.ts): a table added later is not readable until
  // listed, and no source grant (FILE, URL, S3, REMOTE…) is given, as on a cluster.
  const analystGrants = analystGrantStatements(database).map((g) => `<query>${g}</query>`).join('')
  return `<clickhouse>
  <profiles>
    <default>${HTTP_LIMITS}</default>
    <service>${HTTP_LIMITS}<priority>${ENGINE_PRIORITY.service}</priority><max_threads>${ENGINE_SERVICE_MAX_THREADS}</max_threads></service>
    <analyst_limits>${profile}<constraints>${constraints}</constraints></analyst_limits>
  </profiles>
  <quotas>
    <default/>
    <analyst_rate><interval><duration>60</duration><queries>${l.queriesPerMinute}</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></analyst_rate>
  </quotas>
  <users>
    <default>
      <password></password>${LOOPBACK}<profile>default</profile><quota>default</quota>
      <grants><query>GRANT SYSTEM LISTEN ON *.*</query><query>GRANT SELECT ON system.numbers</query></grants>
    </default>
    <svc>
      <password_sha256_hex>${sha256(credentials.svc)}</password_sha256_hex>${LOOPBACK}<profile>service</profile><quota>default</quota>
    </svc>
    <analyst>
      <password_sha256_hex>${sha256(credentials.analyst)}</password_sha256_hex>${LOOPBACK}<profile>analyst_limits</profile><quota>analyst_rate</quota>
      <grants>${analystGrants}</grants>
    </analyst>
  </users>
</clickhouse>
`
}
