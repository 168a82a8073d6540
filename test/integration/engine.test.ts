import { createClient } from '@clickhouse/client'
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClickHouse, forLongStatements, queryRows } from '../../core/clickhouse.ts'
import { post } from '../../infra/engine/engine-process.ts'
import { ENGINE_SERVER_SETTINGS, MERGE_SELECTOR_BASE } from '../../infra/engine/engine-files.ts'
import { accountEngine, API_CONSUMER, enginePatience, engineFor, engineStep, setEngineStep } from '../../core/engine-accounting.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import { createLogger } from '../../core/logger.ts'
import { createConsumer } from '../../pipelines/consumer/create-consumer.ts'
import { z } from 'zod'
import { createMetrics } from '../../core/metrics.ts'
import { createWatermarks } from '../../core/serving/watermarks.ts'
import { startTestEngine, type TestEngine } from '../setup/engine.ts'
import { migrate, readMigrations } from '../../sql/migrate.ts'
import { freePort, runSvc, spawnSvc } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'
import { until } from '../setup/until.ts'

/**
 * `svc engine`: one ClickHouse engine process serving a data dir over ClickHouse's HTTP
 * interface, for roles in other processes (CLICKHOUSE_URL). Statements from different
 * processes run at once, and a clean stop and a crash lose nothing acknowledged.
 */
describe('svc engine', () => {
  const dir = tempDir('svc-engine-')
  let engine: TestEngine
  const svc = () => ({ url: engine.env.CLICKHOUSE_URL, password: engine.env.CLICKHOUSE_PASSWORD })
  const asSvc = (sql: string) => post(svc().url, sql, svc().password)

  beforeAll(async () => {
    engine = await startTestEngine(dir.path)
  })
  afterAll(async () => {
    await engine?.svc.stop()
    dir.cleanup()
  })

  it('serves ClickHouse over HTTP on loopback, to the service user only', async () => {
    expect(engine.env.CLICKHOUSE_URL).toBe(`http://127.0.0.1:${engine.httpPort}`)
    expect(engine.env.CLICKHOUSE_USER).toBe('svc')
    expect((await asSvc('SELECT 1 + 1')).trim()).toBe('2')
    await expect(post(svc().url, 'SELECT 1', 'wrong')).rejects.toThrow(/AUTHENTICATION_FAILED|password is incorrect/)
    // `default` (no password: clickhouse-local runs its own statement as it) may read no data.
    await asSvc('CREATE TABLE probe (x UInt8) ENGINE = MergeTree ORDER BY x')
    await expect(post(svc().url, 'SELECT count() FROM probe', '', 'default')).rejects.toThrow(/ACCESS_DENIED/)
  })

  it('lets a dozen small parts of a table gather before it merges them (merge_selector_base)', async () => {
    expect((await asSvc("SELECT value FROM system.merge_tree_settings WHERE name = 'merge_selector_base'")).trim()).toBe(String(MERGE_SELECTOR_BASE))
    // Eight one-row parts, as eight batches leave them: ClickHouse's default (5) merges them
    // within a second or two; here they stay apart.
    await asSvc('CREATE TABLE parts_probe (x UInt32) ENGINE = MergeTree ORDER BY x')
    for (let i = 0; i < 8; i++) await asSvc(`INSERT INTO parts_probe VALUES (${i})`)
    await new Promise((r) => setTimeout(r, 3_000))
    expect(Number(await asSvc("SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 'parts_probe' AND active"))).toBe(8)
  })

  it('runs with the server settings that keep it quiet while idle (asynchronous metrics, schedule pool)', async () => {
    const names = Object.keys(ENGINE_SERVER_SETTINGS).map((n) => `'${n}'`).join(', ')
    const rows = (await asSvc(`SELECT name, value FROM system.server_settings WHERE name IN (${names}) ORDER BY name FORMAT TSV`)).trim().split('\n').map((l) => l.split('\t'))
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(Object.entries(ENGINE_SERVER_SETTINGS).map(([k, v]) => [k, String(v)])))
  })

  it('applies the migrations over HTTP (svc migrate with CLICKHOUSE_URL)', async () => {
    const r = await runSvc(['migrate'], { ...engine.env, DATA_DIR: join(dir.path, 'unused') })
    expect(r.code, r.stderr).toBe(0)
    const result = JSON.parse(r.stdout.trim().split('\n').pop()!) as { applied: string[] }
    expect(result.applied.length).toBeGreaterThan(20)
    expect(Number(await asSvc("SELECT count() FROM system.tables WHERE database = 'default' AND name IN ('chain_blocks', 'api_keys')"))).toBe(2)
  })

  it('gives API reads up after CLICKHOUSE_REQUEST_TIMEOUT_MS, and waits for a long statement (an audit) on the client for long statements', async () => {
    // As the roles hold it: counted by engine-accounting, closed with its sibling.
    const ch = accountEngine(await createClickHouse({ ...engine.env, CLICKHOUSE_DATABASE: 'default', DATA_DIR: join(dir.path, 'unused'), CLICKHOUSE_REQUEST_TIMEOUT_MS: 1_000 }), createMetrics({ processMetrics: false }))
    try {
      const slow = 'SELECT sleep(2) AS s'
      await expect(queryRows(ch, slow)).rejects.toThrow(/clickhouse unavailable/)
      const long = await forLongStatements(ch)
      expect(long).not.toBe(ch)
      expect(await queryRows(long, slow)).toEqual([{ s: 0 }])
    } finally {
      await ch.close()
    }
  })

  it("gets a consumer past a statement that needs longer than the request timeout: each retry waits twice as long, API reads still give up", async () => {
    const metrics = createMetrics({ processMetrics: false })
    const ch = accountEngine(await createClickHouse({ ...engine.env, CLICKHOUSE_DATABASE: 'default', DATA_DIR: join(dir.path, 'unused'), CLICKHOUSE_REQUEST_TIMEOUT_MS: 400 }), metrics)
    const bus = createMemoryBus({ retryDelayMs: 20 })
    const patient = engineFor(ch, 'patient')
    await ch.command({ query: 'CREATE TABLE patience_probe (k String) ENGINE = MergeTree ORDER BY k SETTINGS non_replicated_deduplication_window = 100' })
    const consumer = createConsumer({
      name: 'patient', bus, logger: createLogger('silent'), metrics, topic: 'patience.probe', schema: z.object({ k: z.string() }), engine: patient, backoffMs: 20,
      sink: {
        name: 'slow-writer',
        // A second of work with nothing sent back meanwhile: 2.5 request timeouts.
        async write(items, ctx) {
          await patient.command({
            query: 'INSERT INTO patience_probe SELECT k FROM (SELECT arrayJoin({keys:Array(String)}) AS k) WHERE sleep(1) = 0',
            query_params: { keys: items.map((i) => i.value.k) },
            clickhouse_settings: { insert_deduplication_token: ctx.token, max_block_size: '1000' },
          })
        },
      },
    })
    try {
      await bus.publish('patience.probe', [{ key: 'a', value: JSON.stringify({ k: 'a' }) }])
      await consumer.start()
      await until('the slow batch acknowledged', async () => ((await consumer.lag()) === 0 ? true : undefined), 30_000)
      // Timed out at 0.4 s and 0.8 s, answered within 1.6 s (or later on a busy machine, each
      // timeout doubling the wait); the attempts the engine finished after their client gave up
      // were the same insert under the same token: one row.
      const timeouts = await metrics.infraRetries.get({ consumer: 'patient', kind: 'timeout' })
      expect(timeouts).toBeGreaterThanOrEqual(2)
      expect(enginePatience(patient)).toBe(2 ** timeouts)
      expect(await queryRows(ch, 'SELECT k FROM patience_probe')).toEqual([{ k: 'a' }])
      // Requests still give up at the plain timeout: the same second of work fails them.
      await expect(queryRows(engineFor(ch, API_CONSUMER, '/probe'), 'SELECT sleep(1) AS s')).rejects.toThrow(/clickhouse unavailable/)
    } finally {
      await consumer.stop()
      await ch.close()
    }
  })

  it('measures how long a query waited before the engine ran it, by class: behind a busy client queue, not its own work', async () => {
    const metrics = createMetrics({ processMetrics: false })
    // One connection: a second query waits on the client for the first one's answer.
    const ch = accountEngine(
      createClient({ url: engine.env.CLICKHOUSE_URL, username: engine.env.CLICKHOUSE_USER, password: engine.env.CLICKHOUSE_PASSWORD, database: 'default', max_open_connections: 1 }),
      metrics,
    )
    try {
      const pipelineCh = engineFor(ch, 'chain-4663', 'insert')
      await queryRows(pipelineCh, 'SELECT sleep(0.5) AS s')
      const pipeline = await metrics.engineWait.totals({ class: 'pipeline' })
      expect(pipeline.count).toBe(1)
      expect(pipeline.sum).toBeLessThan(0.3) // its half second of work is not waiting
      const [, waited] = await Promise.all([
        queryRows(pipelineCh, 'SELECT sleep(0.5) AS s'),
        new Promise((r) => setTimeout(r, 50)).then(() => queryRows(engineFor(ch, API_CONSUMER, '/token/{address}'), 'SELECT 1 AS one')),
      ])
      expect(waited).toEqual([{ one: 1 }])
      const api = await metrics.engineWait.totals({ class: 'api' })
      expect(api.count).toBe(1)
      expect(api.sum).toBeGreaterThan(0.3) // it queued behind the pipeline's statement
    } finally {
      await ch.close()
    }
  })

  it('counts each statement under the consumer and step of the client it went through, while consumers run at once', async () => {
    const metrics = createMetrics({ processMetrics: false })
    const ch = accountEngine(createClient({ url: engine.env.CLICKHOUSE_URL, username: engine.env.CLICKHOUSE_USER, password: engine.env.CLICKHOUSE_PASSWORD, database: 'default' }), metrics)
    try {
      const chain = engineFor(ch, 'chain-4663')
      const social = engineFor(ch, 'social-posts')
      // A served batch wakes a listener that reads through its own client: not counted as the batch's.
      const watermarks = createWatermarks(ch, [4663], 0)
      const woken: Array<Promise<unknown>> = []
      watermarks.onAdvance(() => woken.push(queryRows(ch, 'SELECT 1 AS one')))
      setEngineStep(chain, 'chain-writer')
      setEngineStep(social, 'mentions-writer')
      await Promise.all([
        queryRows(chain, 'SELECT sleep(0.2) AS s').then(() => watermarks.advance(4663, 10, 1)),
        Promise.all([queryRows(engineStep(chain, 'refresh'), 'SELECT 2 AS two'), queryRows(engineStep(engineStep(chain, 'refresh'), 'fifo'), 'SELECT 3 AS three')]),
        queryRows(social, 'SELECT 4 AS four'),
      ])
      setEngineStep(chain, 'chain-id')
      await queryRows(chain, 'SELECT 5 AS five')
      await Promise.all(woken)
      const count = (consumer: string, step: string) => metrics.engineStatements.get({ consumer, step })
      expect(await count('chain-4663', 'chain-writer')).toBe(1)
      expect(await count('chain-4663', 'chain-writer/refresh')).toBe(1)
      expect(await count('chain-4663', 'chain-writer/refresh/fifo')).toBe(1)
      expect(await count('chain-4663', 'chain-id')).toBe(1)
      expect(await count('social-posts', 'mentions-writer')).toBe(1)
      expect(await count('other', 'other')).toBe(1)
      expect(await count('other', 'refresh')).toBe(0)
    } finally {
      await ch.close()
    }
  })

  it("takes a batch's keys as one query parameter, over ClickHouse's default 128 KiB a field", async () => {
    const ch = await createClickHouse({ ...engine.env, CLICKHOUSE_DATABASE: 'default', DATA_DIR: join(dir.path, 'unused') })
    try {
      const keys = Array.from({ length: 10_000 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`)
      expect(await queryRows(ch, 'SELECT length({keys:Array(String)}) AS n', { keys })).toEqual([{ n: '10000' }])
    } finally {
      await ch.close()
    }
    // The engine's own log is kept at information level, not trace.
    expect(readFileSync(join(dir.path, 'engine', 'engine.log'), 'utf8')).not.toMatch(/<Trace>/)
  })

  it('gives the analyst user reads without the secret tables, and no writes', async () => {
    const { analyst } = JSON.parse(readFileSync(join(dir.path, 'engine', 'credentials.json'), 'utf8')) as { analyst: string }
    const asAnalyst = (sql: string) => post(svc().url, sql, analyst, 'analyst')
    expect((await asAnalyst('SELECT count() FROM chain_blocks')).trim()).toBe('0')
    await expect(asAnalyst('SELECT count() FROM api_keys')).rejects.toThrow(/ACCESS_DENIED/)
    await expect(asAnalyst('INSERT INTO probe VALUES (1)')).rejects.toThrow(/ACCESS_DENIED|READONLY/)
    await expect(post(`${svc().url}/?readonly=0`, 'SELECT 1', analyst, 'analyst')).rejects.toThrow(/READONLY|readonly/)
  })

  it('runs statements from two processes at once', async () => {
    // Each statement sleeps 2 s (one row a second, a row per block: sleep is capped at 3 s a block).
    const sql = 'SELECT sum(sleepEachRow(1)) FROM numbers(2) SETTINGS max_block_size = 1'
    // Each client process reports when its statement went out and when the answer came back.
    const client = () =>
      new Promise<{ sent: number; answered: number }>((resolve, reject) => {
        const script = `
          const [url, password, sql, at] = process.argv.slice(1)
          const auth = 'Basic ' + Buffer.from('svc:' + password).toString('base64')
          setTimeout(() => {
            const sent = Date.now()
            fetch(url, { method: 'POST', body: sql, headers: { authorization: auth } })
              .then(async (r) => { if (!r.ok) throw new Error(await r.text()); console.log(JSON.stringify({ sent, answered: Date.now() })) })
              .catch((e) => { console.error(e.message); process.exit(1) })
          }, Number(at) - Date.now())`
        const child = spawn(process.execPath, ['-e', script, svc().url, svc().password, sql, String(at)], { stdio: ['ignore', 'pipe', 'inherit'] })
        let out = ''
        child.stdout.on('data', (d) => (out += d))
        child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited ${code}`))))
      })
    // Both send at the same moment, once both processes are up.
    const at = Date.now() + 2_000
    const [a, b] = await Promise.all([client(), client()])
    const overlap = Math.min(a.answered, b.answered) - Math.max(a.sent, b.sent)
    expect(overlap).toBeGreaterThanOrEqual(1_000)
    // One after the other, the statement that waited would take 2 s plus the overlap (3 s or more).
    for (const c of [a, b]) {
      expect(c.answered - c.sent).toBeGreaterThanOrEqual(2_000)
      expect(c.answered - c.sent).toBeLessThan(2_900)
    }
  })

  it('waits for a migration statement slower than the request timeout (an engine busy at start), on the client for long statements', async () => {
    await asSvc('CREATE DATABASE IF NOT EXISTS slow_migrations')
    const ch = await createClickHouse({ ...engine.env, CLICKHOUSE_DATABASE: 'slow_migrations', DATA_DIR: join(dir.path, 'unused'), CLICKHOUSE_REQUEST_TIMEOUT_MS: 1_000 })
    const migrations = tempDir('svc-slow-migrations-')
    try {
      writeFileSync(join(migrations.path, '001_slow.sql'), 'CREATE TABLE IF NOT EXISTS slow_probe (x UInt8) ENGINE = MergeTree ORDER BY x;\nSELECT sleep(2);\n')
      // The statement alone, on the client's own timeout, gives up: what a migration used to do.
      await expect(ch.command({ query: 'SELECT sleep(2)' })).rejects.toThrow(/clickhouse unavailable/)
      expect((await migrate(ch, readMigrations(migrations.path))).applied).toEqual(['001_slow'])
      expect(Number(await asSvc("SELECT count() FROM system.tables WHERE database = 'slow_migrations' AND name = 'slow_probe'"))).toBe(1)
    } finally {
      migrations.cleanup()
      await ch.close()
    }
  })

  it('a role whose engine does not answer at start tries the migrations again, and runs once the engine is up', { timeout: 120_000 }, async () => {
    const ports = { httpPort: await freePort(), tcpPort: await freePort() }
    const roleDir = tempDir('svc-late-engine-role-')
    const lateDir = tempDir('svc-late-engine-')
    // The engine keeps the passwords it finds in its credentials file: the role knows them already.
    const password = 'late-engine-svc-password-0123456789'
    mkdirSync(join(lateDir.path, 'engine'), { recursive: true })
    writeFileSync(join(lateDir.path, 'engine', 'credentials.json'), JSON.stringify({ svc: password, analyst: 'late-engine-analyst-password-012345' }), { mode: 0o600 })
    // Nothing listens on the port yet: the role's first migration attempt is refused.
    const role = spawnSvc(['pipeline', 'scans'], { CLICKHOUSE_URL: `http://127.0.0.1:${ports.httpPort}`, CLICKHOUSE_USER: 'svc', CLICKHOUSE_PASSWORD: password, KAFKA_BROKERS: '', REDIS_URL: '', DATA_DIR: roleDir.path, LOG_LEVEL: 'info' })
    let late: TestEngine | undefined
    try {
      await until('the role to try the migrations again', () => {
        if (role.child.exitCode !== null) throw new Error(`the role stopped:\n${role.output()}`)
        return /the migrations are tried again/.test(role.output()) ? true : undefined
      })
      late = await startTestEngine(lateDir.path, ports)
      await until('the role to migrate', () => {
        if (role.child.exitCode !== null) throw new Error(`the role stopped:\n${role.output()}`)
        return /migrations applied/.test(role.output()) ? true : undefined
      })
      const tables = await post(late.env.CLICKHOUSE_URL, "SELECT count() FROM system.tables WHERE database = 'default' AND name IN ('chain_blocks', 'scan_jobs')", password)
      expect(Number(tables)).toBe(2)
      // Running, and still running a while later: on the memory bus nothing but the role itself holds
      // its event loop (it once ended with 0 the moment it started).
      await until('the role to start', () => (/scans role started/.test(role.output()) ? true : undefined))
      await new Promise((r) => setTimeout(r, 1500))
      expect(role.child.exitCode, role.output()).toBeNull()
    } finally {
      await role.stop()
      await late?.svc.stop()
      roleDir.cleanup()
      lateDir.cleanup()
    }
  })

  it('keeps every row over a clean stop and restart, and over a crash of the engine', async () => {
    await asSvc('CREATE TABLE kept (n UInt64) ENGINE = MergeTree ORDER BY n')
    await asSvc('INSERT INTO kept SELECT number FROM numbers(1000)')
    const stopped = await engine.svc.stop()
    expect(stopped.code).toBe(0)
    expect(engine.svc.output()).toMatch(/"exit":"code 0","msg":"engine stopped"/)

    engine = await startTestEngine(dir.path, { httpPort: engine.httpPort, tcpPort: engine.tcpPort })
    expect((await asSvc('SELECT count(), sum(n) FROM kept')).trim()).toBe('1000\t499500')
    await asSvc('INSERT INTO kept SELECT number + 1000 FROM numbers(1000)')

    // The engine killed outright: the supervisor restarts it on the same port and data.
    const pid = Number(/"engine_pid":(\d+)/.exec(engine.svc.output())![1])
    process.kill(pid, 'SIGKILL')
    await until('the engine restarted', () => (/engine restarted/.test(engine.svc.output()) ? true : undefined), 20_000)
    expect((await asSvc('SELECT count(), sum(n) FROM kept')).trim()).toBe('2000\t1999000')
  })
})
