import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { SERVICE_PRIORITY, SQL_LIMITS } from '../../core/domain/plans.ts'
import { ANALYST_TABLES, SECRET_TABLES } from '../../sql/table-access.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { startTestEngine, type TestEngine } from '../setup/engine.ts'
import { requireJdbcClasspath } from '../setup/services.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * The BI tools' door: ClickHouse's official JDBC driver (Maven Central, run by Java 17) with its
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

function runJava(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const probe = join(import.meta.dirname, '../clients/JdbcProbe.java')
  return new Promise((resolve, reject) => {
    const child = spawn('java', ['-cp', requireJdbcClasspath(), probe, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('error', reject)
    child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }))
  })
}

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
  })

  it('runs analysts\' queries after the service\'s own statements on the shared engine (ClickHouse priorities)', async () => {
    const through = await fetch(`${base}/clickhouse?query=${encodeURIComponent("SELECT getSetting('priority'), currentUser()")}`, { headers: { 'x-clickhouse-key': analyst } })
    expect((await through.text()).trim().split('\t')).toEqual([String(SQL_LIMITS.priority), 'analyst'])
    const [own] = await queryRows<{ p: string }>(env.rt.ch, "SELECT toString(getSetting('priority')) AS p")
    expect(Number(own!.p)).toBe(SERVICE_PRIORITY)
    expect(SERVICE_PRIORITY).toBeLessThan(SQL_LIMITS.priority)
  })
})
