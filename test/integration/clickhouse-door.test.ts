import { join } from 'node:path'
import { createClient, type ClickHouseClient } from '@clickhouse/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { SQL_LIMITS } from '../../core/plans.ts'
import { SECRET_TABLES } from '../../sql/read-only.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { runProgram } from '../setup/run-program.ts'
import { requirePythonToolsBin } from '../setup/services.ts'

/**
 * The data team's door: /clickhouse speaks the ClickHouse HTTP interface. Two real clients
 * (clickhouse-connect from PyPI, @clickhouse/client from npm) connect to the embedded service
 * with an analyst key as to a ClickHouse server; writes, DDL, system tables and the secret
 * tables are refused in ClickHouse's own error body; the key's limits hold.
 */

let env: Embedded
let base: string
let analyst: string
let founders: string

beforeAll(async () => {
  env = await startEmbedded()
  await env.ingestThrough(40)
  base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
  analyst = (await env.api.deps.keys.create('analyst')).key
  founders = (await env.api.deps.keys.create('founders')).key
})

afterAll(async () => {
  await env?.close()
})

async function truth(sql: string): Promise<Record<string, string>> {
  return (await queryRows<Record<string, string>>(env.rt.ch, sql))[0]!
}

/** A raw call of the door: status, the exception code header and the body. */
async function door(path: string, init: RequestInit & { key?: string } = {}) {
  const headers = new Headers(init.headers)
  if (init.key) headers.set('authorization', `Basic ${Buffer.from(`default:${init.key}`).toString('base64')}`)
  const res = await fetch(`${base}/clickhouse${path}`, { ...init, headers })
  return { status: res.status, code: res.headers.get('x-clickhouse-exception-code'), type: res.headers.get('content-type'), format: res.headers.get('x-clickhouse-format'), text: await res.text() }
}

describe('clickhouse-connect (Python) through /clickhouse', () => {
  it('connects, queries, binds parameters; writes, DDL, system and secret tables are refused', { timeout: 120_000 }, async () => {
    const script = join(import.meta.dirname, '../clients/clickhouse_connect_probe.py')
    const { code, stdout, stderr } = await runProgram(join(requirePythonToolsBin(), 'python'), [script, '127.0.0.1', new URL(base).port, analyst])
    expect(code, stderr).toBe(0)
    const r = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      server_version: string
      blocks: [number, number]
      command: number | string
      parameterized: number
      round_trip: string
      columns: string[]
      refused: Record<string, string | null>
    }
    const t = await truth('SELECT count() AS n, max(number) AS top FROM chain_blocks')
    expect(r.blocks).toEqual([Number(t.n), Number(t.top)])
    expect(r.blocks[0]).toBeGreaterThan(0)
    expect(r.server_version).toMatch(/^\d+\.\d+/)
    expect(Number(r.command)).toBe(42)
    expect(r.parameterized).toBe(42)
    expect(r.round_trip).toBe('it\'s \\ a \\\\ ünïcødé "q"')
    expect(r.columns).toContain('number')
    expect(r.refused.write).toMatch(/Code: 164.*READONLY/s)
    expect(r.refused.ddl).toMatch(/Code: 164.*READONLY/s)
    expect(r.refused.drop).toMatch(/Code: 164.*READONLY/s)
    expect(r.refused.system).toMatch(/Code: 497.*system.*ACCESS_DENIED/s)
    expect(r.refused.secret).toMatch(/Code: 497.*api_keys.*ACCESS_DENIED/s)
  })
})

describe('@clickhouse/client (npm) through /clickhouse', () => {
  let client: ClickHouseClient
  beforeAll(() => {
    // The URL's path names a database for this client: the door's path is its `pathname` option.
    client = createClient({ url: base, pathname: '/clickhouse', username: 'default', password: analyst })
  })
  afterAll(async () => {
    await client?.close()
  })

  it('pings, answers JSON formats and binds query parameters', async () => {
    expect((await client.ping()).success).toBe(true)
    const rows = await (await client.query({ query: 'SELECT count() AS n FROM chain_blocks WHERE number <= {top:UInt64}', query_params: { top: 20 }, format: 'JSONEachRow' })).json<{ n: string }>()
    expect(rows).toEqual([{ n: (await truth('SELECT count() AS n FROM chain_blocks WHERE number <= 20')).n }])
    const json = await (await client.query({ query: 'SELECT version() AS v, timezone() AS tz', format: 'JSON' })).json<{ v: string; tz: string }>()
    expect(json.data[0]!.v).toMatch(/^\d+\./)
    const compact = await (await client.query({ query: 'SELECT number FROM numbers(3)', format: 'JSONCompactEachRow' })).json<[string]>()
    expect(compact).toEqual([['0'], ['1'], ['2']])
  })

  it('round-trips string parameters with quotes, backslashes, control characters and unicode exactly', async () => {
    for (const s of ["it's \\ fine", 'a\\b\\\\c', 'tab\there\nnewline', 'ünïcødé ✓ 𝔘', `"double" and 'single'`, '\\x41 stays']) {
      const [row] = await (await client.query({ query: 'SELECT {s:String} AS s, length({s:String}) AS n', query_params: { s }, format: 'JSONEachRow' })).json<{ s: string; n: number }>()
      expect(row!.s, JSON.stringify(s)).toBe(s)
      expect(Number(row!.n), JSON.stringify(s)).toBe(Buffer.byteLength(s))
    }
  })

  it('refuses a write, DDL, system.* and every secret table with ClickHouse error codes', async () => {
    const codeOf = async (query: string) => {
      try {
        await client.query({ query, format: 'JSONEachRow' })
        return 'answered'
      } catch (err) {
        return `${(err as { code?: string }).code}: ${(err as Error).message}`
      }
    }
    expect(await codeOf('INSERT INTO chain_blocks SELECT * FROM chain_blocks LIMIT 1')).toMatch(/^164: /)
    expect(await codeOf('ALTER TABLE chain_blocks DELETE WHERE 1')).toMatch(/^164: /)
    expect(await codeOf('CREATE TABLE x (a UInt8) ENGINE = Memory')).toMatch(/^164: /)
    expect(await codeOf('SELECT name FROM system.tables')).toMatch(/^497: .*system/)
    expect(await codeOf('SELECT * FROM `system`.`users`')).toMatch(/^497: /)
    expect(await codeOf("SELECT * FROM merge(currentDatabase(), '^api_')")).toMatch(/^497: .*merge/)
    expect(await codeOf("SELECT * FROM file('/etc/passwd', 'LineAsString')")).toMatch(/^497: .*file/)
    expect(await codeOf('SHOW PROCESSLIST')).toMatch(/^497: /)
    for (const table of SECRET_TABLES) expect(await codeOf(`SELECT count() FROM ${table}`)).toMatch(new RegExp(`^497: .*${table}`))
    expect(await codeOf('SELECT 1 SETTINGS readonly = 0')).toMatch(/^164: /)
    expect(await codeOf('SELECT 1; DROP TABLE chain_blocks')).toMatch(/^62: /)
    expect(await codeOf('SELECT `it\'s`; CREATE TABLE x (a UInt8) ENGINE = Memory')).toMatch(/^62: /)
    expect(await codeOf("SELECT * FROM `f\\x69le`('/proc/self/environ', 'RawBLOB')")).toMatch(/^497: .*file/)
    expect(await codeOf('SELECT count() FROM `\\x77ebhooks`')).toMatch(/^497: .*webhooks/)
    await expect(client.query({ query: 'SELECT 1', format: 'JSONEachRow', clickhouse_settings: { format_schema: '/etc/passwd:M' } as never })).rejects.toThrow(/format_schema/)
    // Nothing was written or dropped.
    expect(Number((await truth('SELECT count() AS n FROM chain_blocks')).n)).toBeGreaterThan(0)
    expect(await truth("SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'x'")).toEqual({ n: '0' })
  })
})

describe('the HTTP interface itself', () => {
  it('with the engine in the service\'s process, refuses compressed blocks and the catalogue with a clear error', async () => {
    for (const param of ['compress=1', 'decompress=1']) {
      const r = await door(`?${param}&query=${encodeURIComponent('SELECT 1')}`, { key: analyst })
      expect([r.status, r.code], r.text).toEqual([400, '36'])
      expect(r.text).toMatch(/EMBEDDED_ENGINE=process.*compress=0/)
    }
    const r = await door(`?query=${encodeURIComponent('SELECT name FROM system.tables')}`, { key: analyst })
    expect([r.status, r.code]).toEqual([403, '497'])
  })

  it('honours FORMAT, default_format, settings as parameters and X-ClickHouse-Key', async () => {
    const tsv = await door('/?query=' + encodeURIComponent('SELECT 1 AS a, 2 AS b'), { key: analyst })
    expect([tsv.status, tsv.text, tsv.format]).toEqual([200, '1\t2\n', 'TabSeparated'])
    expect(tsv.type).toMatch(/tab-separated/)
    const csv = await door('/?default_format=CSVWithNames', { method: 'POST', body: 'SELECT 1 AS a', key: analyst })
    expect(csv.text).toBe('"a"\n1\n')
    expect(csv.type).toBe('text/csv; charset=UTF-8; header=present')
    const bare = await door('/?default_format=CSV', { method: 'POST', body: 'SELECT 1 AS a', key: analyst })
    expect(bare.type).toBe('text/csv; charset=UTF-8; header=absent')
    // param_ values in ClickHouse's escaped form, as curl users write them: a\\b is three characters.
    const escaped = await door(`/?param_s=${encodeURIComponent('a\\\\b')}&param_t=${encodeURIComponent('x\\ty')}`, { method: 'POST', body: 'SELECT length({s:String}), {t:String} = concat(\'x\', char(9), \'y\') FORMAT TSV', key: analyst })
    expect(escaped.text).toBe('3\t1\n')
    const own = await door('/?default_format=CSV', { method: 'POST', body: 'SELECT 1 AS a FORMAT JSONEachRow', key: analyst })
    expect(own.text).toBe('{"a":1}\n')
    const header = await door('/', { method: 'POST', body: 'SELECT 7 AS a FORMAT TSV', headers: { 'x-clickhouse-key': analyst } })
    expect(header.text).toBe('7\n')
    // Query text in the parameter and the body, joined as ClickHouse does.
    const joined = await door('/?query=' + encodeURIComponent('SELECT number FROM numbers(5)'), { method: 'POST', body: 'WHERE number > 2 FORMAT TSV', key: analyst })
    expect(joined.text).toBe('3\n4\n')
    // A client's setting that lowers a limit applies; one above the key's limit is capped.
    const lowered = await door('/?max_result_rows=5', { method: 'POST', body: 'SELECT number FROM numbers(10)', key: analyst })
    expect([lowered.status, lowered.code]).toEqual([500, '396'])
    expect(lowered.text).toMatch(/^Code: 396\. DB::Exception: .*TOO_MANY_ROWS_OR_BYTES/)
    const raised = await door(`/?max_result_rows=${SQL_LIMITS.max_result_rows * 100}`, { method: 'POST', body: `SELECT number FROM numbers(${SQL_LIMITS.max_result_rows * 2})`, key: analyst })
    expect(raised.code).toBe('396')
    const unknown = await door('/?no_such_setting=1', { method: 'POST', body: 'SELECT 1', key: analyst })
    expect([unknown.status, unknown.code]).toEqual([400, '115'])
  })

  it('refuses without an analyst key, with the key in the URL, and past the rate', { timeout: 60_000 }, async () => {
    const none = await door('/', { method: 'POST', body: 'SELECT 1' })
    expect([none.status, none.code]).toEqual([401, '516'])
    expect(none.text).toMatch(/^Code: 516\. DB::Exception: .*\(AUTHENTICATION_FAILED\)/)
    const plan = await door('/', { method: 'POST', body: 'SELECT 1', key: founders })
    expect([plan.status, plan.code]).toEqual([403, '497'])
    expect(plan.text).toMatch(/founders plan does not include SQL/)
    const inUrl = await door(`/?user=default&password=${analyst}`, { method: 'POST', body: 'SELECT 1' })
    expect([inUrl.status, inUrl.code]).toEqual([401, '516'])
    // A fresh key spends its queries per minute, then is refused until the minute ends (the
    // window is the clock minute: start early in one).
    if (new Date().getSeconds() > 40) await new Promise((r) => setTimeout(r, (61 - new Date().getSeconds()) * 1000))
    const busy = (await env.api.deps.keys.create('analyst')).key
    const answers: Array<{ status: number; code: string | null }> = []
    for (let i = 0; i < SQL_LIMITS.queriesPerMinute + 2; i++) answers.push(await door('/', { method: 'POST', body: 'SELECT 1', key: busy }))
    expect(answers.filter((a) => a.status === 200).length).toBe(SQL_LIMITS.queriesPerMinute)
    expect(answers.slice(-2)).toMatchObject([{ status: 429, code: '201' }, { status: 429, code: '201' }])
    expect((await door('/', { method: 'POST', body: 'SELECT 1', key: analyst })).status).toBe(200)
  })
})
