import { createServer, type Server } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { SQL_LIMITS } from '../../core/plans.ts'
import { prepareReadOnly, READ_ONLY_LIMITS, ReadOnlyRefusal, runReadOnlySql } from '../../sql/read-only.ts'
import { ANALYST_TABLES, SECRET_TABLES } from '../../sql/table-access.ts'
import { migratedChDB } from '../setup/chdb.ts'

/**
 * The SQL door as an attacker tries it: every way ClickHouse lets a name be written (plain,
 * backquoted, double-quoted, \x-escaped, mixed case, qualified) for every table function that
 * does not only generate rows, every secret and system table, the functions that read files or
 * reveal the host, a second statement smuggled past a quote, a table named by a parameter. Each
 * is refused before it runs (checked on the real engine's parse), a local listener sees no
 * connection, and no file content comes back.
 */

let db: { ch: ClickHouseClient; close(): Promise<void> }
let listener: Server
let connections = 0
let port = 0

beforeAll(async () => {
  db = await migratedChDB()
  listener = createServer((socket) => {
    connections++
    socket.destroy()
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  port = (listener.address() as { port: number }).port
})

afterAll(async () => {
  await db?.close()
  await new Promise((resolve) => listener?.close(resolve))
})

/** What the analyst door makes of a query: the refusal's code, or 'admitted'. */
async function analyst(query: string, params?: Record<string, unknown>, catalogue = false): Promise<string> {
  try {
    await prepareReadOnly(db.ch, query, { settings: { max_execution_time: SQL_LIMITS.max_execution_time }, defaultFormat: 'TabSeparated', params, catalogue })
    return 'admitted'
  } catch (err) {
    if (err instanceof ReadOnlyRefusal) return `${err.code}:${err.codeName}`
    throw err
  }
}

/** Every way to write one name that ClickHouse reads as that name. */
function spellings(name: string): string[] {
  const hex = [...name].map((c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')
  const oneEscaped = `\\x${name.charCodeAt(0).toString(16)}${name.slice(1)}`
  return [name, `\`${name}\``, `"${name}"`, `\`${hex}\``, `\`${oneEscaped}\``, `"${oneEscaped}"`]
}

const mixedCase = (name: string) => [...name].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('')

describe('table access lists', () => {
  it('classifies every stored table of the schema exactly once', async () => {
    const stored = await queryRows<{ name: string }>(db.ch, "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine != 'MaterializedView' ORDER BY name")
    const analystSet = new Set<string>(ANALYST_TABLES)
    const secret = new Set<string>(SECRET_TABLES)
    const unclassified = stored.map((t) => t.name).filter((t) => !analystSet.has(t) && !secret.has(t))
    expect(unclassified, 'add each new table to ANALYST_TABLES or SECRET_TABLES in sql/table-access.ts').toEqual([])
    expect([...analystSet].filter((t) => secret.has(t))).toEqual([])
  })
})

describe('prepareReadOnly() on the engine\'s own parse', () => {
  it('refuses every table function that does not only generate rows, however its name is written', async () => {
    const all = await queryRows<{ name: string }>(db.ch, 'SELECT name FROM system.table_functions ORDER BY name')
    const generators = new Set(['numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'values', 'generaterandom', 'generateseries', 'generate_series', 'primes', 'null', 'format'])
    const outside = all.map((r) => r.name).filter((n) => !generators.has(n.toLowerCase()))
    expect(outside).toEqual(expect.arrayContaining(['file', 'url', 'icebergS3', 'paimon', 'paimonS3', 'deltaLakeS3', 'icebergCluster', 'icebergAzure', 's3', 'remote', 'merge', 'executable']))
    const admitted: string[] = []
    for (const name of outside) {
      for (const spelled of [...spellings(name), mixedCase(name)]) {
        const code = await analyst(`SELECT * FROM ${spelled}('http://127.0.0.1:${port}/bucket/p/', 'RawBLOB')`)
        // A call the parser cannot read as that function (view() wants a SELECT) is a syntax error: refused too.
        if (!/^(497:ACCESS_DENIED|62:SYNTAX_ERROR)$/.test(code)) admitted.push(`${spelled}: ${code}`)
      }
    }
    expect(admitted).toEqual([])
    expect(await analyst(`SELECT * FROM \`\\x66ile\`('/proc/self/environ', 'RawBLOB')`)).toBe('497:ACCESS_DENIED')
    expect(await analyst(`SELECT * FROM icebergS3('http://127.0.0.1:${port}/bucket/p/')`)).toBe('497:ACCESS_DENIED')
  })

  it('admits the table functions that only generate rows', async () => {
    for (const q of ['SELECT * FROM numbers(3)', 'SELECT * FROM NUMBERS(3)', "SELECT * FROM generateRandom('a UInt8', 1) LIMIT 2", 'SELECT * FROM zeros(2)', "SELECT * FROM values('a UInt8', 1, 2)", 'SELECT * FROM generate_series(1, 3)']) {
      expect(await analyst(q), q).toBe('admitted')
    }
  })

  it('refuses every secret and system table in every spelling, qualified or not, however it is reached', async () => {
    const leaks: string[] = []
    const expectRefused = async (q: string, params?: Record<string, unknown>) => {
      const code = await analyst(q, params)
      if (code === 'admitted') leaks.push(q)
    }
    for (const table of SECRET_TABLES) {
      for (const t of spellings(table)) {
        await expectRefused(`SELECT * FROM ${t}`)
        for (const d of spellings('default')) await expectRefused(`SELECT * FROM ${d}.${t}`)
        await expectRefused(`SELECT count() FROM swaps WHERE tx_hash IN ${t}`)
        await expectRefused(`SELECT ${t}.* FROM swaps`)
        await expectRefused(`SELECT * FROM view(SELECT * FROM ${t})`)
        await expectRefused(`SELECT * FROM (SELECT * FROM ${t}) AS x`)
        await expectRefused(`WITH ${t} AS (SELECT 1) SELECT * FROM ${t}`)
        await expectRefused(`DESCRIBE TABLE ${t}`)
        await expectRefused(`SHOW CREATE TABLE ${t}`)
        await expectRefused(`SHOW COLUMNS FROM ${t}`)
        await expectRefused(`EXISTS TABLE ${t}`)
        await expectRefused(`EXPLAIN SELECT * FROM ${t}`)
      }
      await expectRefused(`SELECT * FROM identifier('${table}')`)
      await expectRefused('SELECT * FROM {t:Identifier}', { t: table })
      await expectRefused(`SELECT * FROM swaps JOIN ${table} USING (chain_id)`)
    }
    for (const sys of [...spellings('system'), 'INFORMATION_SCHEMA', 'information_schema', '`sys\\x74em`']) {
      await expectRefused(`SELECT count() FROM ${sys}.tables`)
      await expectRefused(`SELECT * FROM numbers(1) WHERE number IN ${sys}.numbers`)
      await expectRefused(`SHOW TABLES FROM ${sys}`)
    }
    expect(leaks).toEqual([])
    // A mixed-case name is another (absent) table: nothing to read, the engine says so.
    await expect(db.ch.query({ query: 'SELECT * FROM WebHooks' })).rejects.toThrow(/Unknown table/)
  })

  it('with the catalogue (an engine that filters it by the analyst\'s grants) admits its tables and nothing else of system', async () => {
    const browse = [
      'SELECT name, engine, comment FROM system.tables WHERE database = currentDatabase()',
      'SELECT t.name, d.engine FROM system.tables t JOIN system.databases d ON system.tables.database = system.databases.name',
      "SELECT name, type FROM system.columns WHERE table = 'swaps'",
      'SELECT name FROM system.data_type_families',
      'SELECT table_name FROM information_schema.tables',
      'SELECT TABLE_NAME FROM INFORMATION_SCHEMA.COLUMNS',
      'SELECT * FROM `sys\\x74em`.tables',
    ]
    for (const q of browse) {
      expect(await analyst(q, undefined, true), q).toBe('admitted')
      expect(await analyst(q), q).toBe('497:ACCESS_DENIED')
    }
    const leaks: string[] = []
    for (const q of [
      'SELECT * FROM system.users', 'SELECT * FROM system.processes', 'SELECT query FROM system.query_log', 'SELECT * FROM system.grants',
      'SELECT * FROM system.settings', 'SELECT * FROM information_schema.tables JOIN system.users ON 1 = 1', 'SELECT * FROM INFORMATION_SCHEMA.tables',
      'SELECT * FROM merge(system, \'^tables$\')', 'SHOW TABLES FROM system', 'SELECT * FROM api_keys WHERE 1 IN system.tables', 'SELECT system.users.name FROM system.tables',
    ]) {
      if ((await analyst(q, undefined, true)) === 'admitted') leaks.push(q)
    }
    expect(leaks).toEqual([])
  })

  it('refuses functions that read files, reach hosts, read dictionaries or reveal the host', async () => {
    for (const q of [
      "SELECT file('/etc/passwd')", "SELECT `file`('/etc/passwd')", "SELECT FILE('/etc/passwd')", "SELECT `\\x66ile`('/proc/self/environ')",
      "SELECT getServerSetting('path')", "SELECT GETSERVERSETTING('path')", 'SELECT hostName()', 'SELECT hostname()', 'SELECT fqdn()', 'SELECT fullHostName()',
      "SELECT dictGet('d', 'a', 1)", "SELECT dictGetString('d', 'a', 1)", "SELECT joinGet('j', 'a', 1)", "SELECT hasColumnInTable('default', 'webhooks', 'secret')",
      "SELECT getMacro('shard')", 'SELECT tcpPort()', 'SELECT serverUUID()', 'SELECT showCertificate()', "SELECT identifier('webhooks')",
      'SELECT filesystemAvailable()', "SELECT logTrace('x')", 'SELECT currentRoles()',
    ]) {
      expect(await analyst(q), q).toBe('497:ACCESS_DENIED')
    }
  })

  it('refuses a second statement smuggled behind quotes, comments or a heredoc, and runs none of it', async () => {
    for (const q of [
      'SELECT `it\'s`; CREATE TABLE smuggled1 (a UInt8) ENGINE = Memory',
      "SELECT 1; CREATE TABLE smuggled2 (a UInt8) ENGINE = Memory",
      "SELECT \"a'b\"; CREATE TABLE smuggled3 (a UInt8) ENGINE = Memory; SELECT '",
      'SELECT $$ x $$; CREATE TABLE smuggled4 (a UInt8) ENGINE = Memory',
      'EXPLAIN SELECT 1; CREATE TABLE smuggled5 (a UInt8) ENGINE = Memory',
    ]) {
      expect(await analyst(q), q).toMatch(/^62:SYNTAX_ERROR$/)
    }
    const made = await queryRows(db.ch, "SELECT name FROM system.tables WHERE name LIKE 'smuggled%'")
    expect(made).toEqual([])
  })

  it('refuses writes, SETTINGS, INTO OUTFILE and SHOW of the server\'s own state', async () => {
    expect(await analyst('INSERT INTO swaps SELECT * FROM swaps')).toBe('164:READONLY')
    expect(await analyst('SELECT 1 SETTINGS readonly = 0')).toBe('164:READONLY')
    expect(await analyst("SELECT 1 INTO OUTFILE '/tmp/svc-outfile'")).not.toBe('admitted')
    expect(await analyst("SHOW TABLES INTO OUTFILE '/tmp/svc-outfile'")).toBe('164:READONLY')
    expect(await analyst('SHOW PROCESSLIST')).toBe('497:ACCESS_DENIED')
    expect(await analyst('SHOW GRANTS')).toBe('497:ACCESS_DENIED')
    expect(await analyst('SELECT 1 FORMAT Protobuf')).toBe('497:ACCESS_DENIED')
  })

  it('admits an analyst\'s ordinary reads', async () => {
    for (const q of [
      'SELECT count() FROM swaps', 'SELECT count() FROM default.swaps', 'SELECT * FROM `swaps` LIMIT 1', 'WITH w AS (SELECT 1 AS a) SELECT * FROM w',
      'SELECT s.token FROM swaps AS s JOIN pools AS p ON s.pool = p.pool LIMIT 1', 'DESCRIBE TABLE swaps', 'SHOW COLUMNS FROM swaps', 'SHOW TABLES', 'EXISTS TABLE swaps',
      'EXPLAIN SELECT count() FROM swaps', "SELECT {s:String} AS s FORMAT JSON", 'SELECT 1;', '-- a comment\nSELECT 1 /* and another */',
    ]) {
      expect(await analyst(q, { s: "it's \\ fine" }), q).toBe('admitted')
    }
  })

  it('the operator\'s SQL reads the system tables but no secret table, file or host', async () => {
    expect((await runReadOnlySql(db.ch, 'SELECT count() AS n FROM system.tables'))[0]!.n).not.toBe('0')
    await expect(runReadOnlySql(db.ch, 'SELECT * FROM webhooks')).rejects.toThrow(/webhooks is not readable/)
    await expect(runReadOnlySql(db.ch, "SELECT * FROM file('/etc/passwd', 'LineAsString')")).rejects.toThrow(/function file\(\)/)
    await expect(runReadOnlySql(db.ch, `SELECT * FROM url('http://127.0.0.1:${port}/', 'RawBLOB')`)).rejects.toThrow(/table function url/)
    expect(READ_ONLY_LIMITS.readonly).toBe('2')
  })

  it('no query above reached the local listener', () => {
    expect(connections).toBe(0)
  })
})
