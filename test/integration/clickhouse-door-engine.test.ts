import { join } from 'node:path'
import { createClient } from '@clickhouse/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { SQL_LIMITS } from '../../core/plans.ts'
import { ENGINE_PRIORITY, ENGINE_SERVICE_MAX_THREADS } from '../../core/engine-priority.ts'
import { CompressedBodyError, decompressClickHouseBody } from '../../api/clickhouse-compressed-body.ts'
import { ANALYST_TABLES, SECRET_TABLES } from '../../sql/table-access.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { startTestEngine, type TestEngine } from '../setup/engine.ts'
import { runProgram } from '../setup/run-program.ts'
import { requireJdbcClasspath } from '../setup/services.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * The data team's door on the engine process (the embedded default), where the engine itself
 * answers each checked query. The BI tools' door: ClickHouse's official JDBC driver (Maven Central, run by Java 17) with its
 * default settings — compressed answers (compress=1, LZ4 blocks with CityHash128 checksums),
 * RowBinaryWithNamesAndTypes — connects to the service running on its engine process, browses
 * the catalogue (exactly the analyst tables), reads typed and prepared queries (UInt256 exact)
 * and is refused on writes, secret tables and the rest of `system`.
 */

const engineDir = tempDir('svc-jdbc-engine-')
let engine: TestEngine
let env: Embedded
let base: string
let analyst: string

beforeAll(async () => {
  engine = await startTestEngine(engineDir.path)
  env = await startEmbedded(engine.env)
  await env.ingestThrough(30)
  base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
  analyst = (await env.api.deps.keys.create('analyst')).key
}, 120_000)

afterAll(async () => {
  await env?.close()
  await engine?.svc.stop()
  engineDir.cleanup()
})

const runJava = (args: string[]) => runProgram('java', ['-cp', requireJdbcClasspath(), join(import.meta.dirname, '../clients/JdbcProbe.java'), ...args])

describe('the ClickHouse JDBC driver through /clickhouse', () => {
  it('connects with its defaults, lists the analyst tables and columns, reads typed and prepared queries, is refused on writes', { timeout: 180_000 }, async () => {
    const port = new URL(base).port
    const { code, stdout, stderr } = await runJava([`jdbc:clickhouse://127.0.0.1:${port}/clickhouse/default`, analyst])
    expect(code, `${stderr}\n${stdout}`).toBe(0)
    const r = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      product: string
      schemas: string[]
      tables: string[]
      swaps_columns: string[]
      type_count: number
      uint256: string
      blocks: number
      head: number
      prepared_string: string
      prepared_uint256: string
      prepared_count: number
      write_refused: string | null
      secret_refused: string | null
      system_refused: string | null
      compressed_request: string
    }
    // The catalogue as the engine lists it for the analyst user: every analyst table, no secret one.
    expect(r.schemas).toContain('default')
    expect(r.schemas).not.toContain('system')
    expect([...r.tables].sort()).toEqual([...ANALYST_TABLES].sort())
    for (const secret of SECRET_TABLES) expect(r.tables).not.toContain(secret)
    const swapColumns = await queryRows<{ c: string }>(env.rt.ch, "SELECT concat(name, ':', type) AS c FROM system.columns WHERE database = currentDatabase() AND table = 'swaps' ORDER BY position")
    expect(r.swaps_columns).toEqual(swapColumns.map((x) => x.c))
    expect(r.type_count).toBeGreaterThan(10)

    const [truth] = await queryRows<{ n: string; head: string }>(env.rt.ch, 'SELECT count() AS n, max(number) AS head FROM chain_blocks')
    expect(r.uint256).toBe((2n ** 256n - 1n).toString())
    expect([r.blocks, r.head]).toEqual([Number(truth!.n), Number(truth!.head)])
    expect(r.prepared_string).toBe('it\'s \\ a "q" ünïcødé')
    expect(r.prepared_uint256).toBe('123456789012345678901234567890123456789')
    expect(r.prepared_count).toBe(10)

    expect(r.write_refused).toMatch(/164|READONLY/)
    expect(r.secret_refused).toMatch(/497|ACCESS_DENIED/)
    expect(r.system_refused).toMatch(/497|ACCESS_DENIED/)
    expect(r.compressed_request).toBe('7 compressed ünïcødé')
  })

  it('runs analysts\' queries after the service\'s own statements on the shared engine (ClickHouse priorities)', async () => {
    const through = await fetch(`${base}/clickhouse?query=${encodeURIComponent("SELECT getSetting('priority'), currentUser()")}`, { headers: { 'x-clickhouse-key': analyst } })
    expect((await through.text()).trim().split('\t')).toEqual([String(SQL_LIMITS.priority), 'analyst'])
    const [own] = await queryRows<{ p: string; threads: string }>(env.rt.ch, "SELECT toString(getSetting('priority')) AS p, toString(getSetting('max_threads')) AS threads")
    expect(Number(own!.p)).toBe(ENGINE_PRIORITY.service)
    expect(ENGINE_PRIORITY.service).toBeLessThan(SQL_LIMITS.priority)
    // The service's statements run on one thread each; analysts' keep the engine's default.
    expect(Number(own!.threads)).toBe(ENGINE_SERVICE_MAX_THREADS)
    const analystThreads = await fetch(`${base}/clickhouse?query=${encodeURIComponent("SELECT toString(getSetting('max_threads'))")}`, { headers: { 'x-clickhouse-key': analyst } })
    expect((await analystThreads.text()).trim()).not.toBe(String(ENGINE_SERVICE_MAX_THREADS))
  })
})

describe('@clickhouse/client through /clickhouse on the engine', () => {
  it('round-trips string parameters exactly (the engine reads their escapes), answers its formats and refuses as the door does', async () => {
    const client = createClient({ url: base, pathname: '/clickhouse', username: 'analyst', password: analyst })
    try {
      for (const s of ["it's \\ fine", 'a\\b\\\\c', 'tab\there\nnewline', 'ünïcødé ✓ 𝔘', `"double" and 'single'`, '\\x41 stays']) {
        const [row] = await (await client.query({ query: 'SELECT {s:String} AS s, length({s:String}) AS n', query_params: { s }, format: 'JSONEachRow' })).json<{ s: string; n: number }>()
        expect(row!.s, JSON.stringify(s)).toBe(s)
        expect(Number(row!.n), JSON.stringify(s)).toBe(Buffer.byteLength(s))
      }
      const compact = await (await client.query({ query: 'SELECT number FROM numbers(3)', format: 'JSONCompactEachRow' })).json<[string]>()
      expect(compact).toEqual([['0'], ['1'], ['2']])
      await expect(client.query({ query: 'SELECT * FROM webhooks' })).rejects.toThrow(/webhooks is not readable/)
      await expect(client.command({ query: 'DROP TABLE swaps' })).rejects.toThrow(/READONLY|not a read/)
    } finally {
      await client.close()
    }
  })
})

describe('ClickHouse compressed blocks (decompress=1 bodies)', () => {
  it('decodes the engine\'s own LZ4 blocks exactly, and refuses cut, oversized and unknown blocks', async () => {
    const text = Array.from({ length: 40_000 }, (_, i) => `row ${i} ünïcødé ${'x'.repeat(i % 13)}\n`).join('')
    const { CLICKHOUSE_URL, CLICKHOUSE_USER, CLICKHOUSE_PASSWORD } = engine.env
    const res = await fetch(`${CLICKHOUSE_URL}/?compress=1`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${CLICKHOUSE_USER}:${CLICKHOUSE_PASSWORD}`).toString('base64')}` },
      body: "SELECT concat('row ', toString(number), ' ünïcødé ', repeat('x', number % 13)) FROM numbers(40000) FORMAT TSVRaw",
    })
    const blocks = Buffer.from(await res.arrayBuffer())
    expect(res.status).toBe(200)
    expect(blocks[16]).toBe(0x82)
    expect(blocks.length).toBeLessThan(Buffer.byteLength(text))
    expect(decompressClickHouseBody(blocks, 8 << 20).toString('utf8')).toBe(text)

    expect(() => decompressClickHouseBody(blocks.subarray(0, blocks.length - 1), 8 << 20)).toThrow(CompressedBodyError)
    expect(() => decompressClickHouseBody(blocks, 1000)).toThrow(/more than 1000 bytes/)
    const unknown = Buffer.from(blocks)
    unknown[16] = 0x90
    expect(() => decompressClickHouseBody(unknown, 8 << 20)).toThrow(/method 0x90/)
    const garbled = Buffer.from(blocks)
    garbled.fill(0xff, 30, 60)
    expect(() => decompressClickHouseBody(garbled, 8 << 20)).toThrow(CompressedBodyError)
  })
})

