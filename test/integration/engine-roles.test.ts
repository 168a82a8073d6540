import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestEngine, type TestEngine } from '../setup/engine.ts'
import { freePort, runSvc, startSvcServer, type SvcServer } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'
import { until } from '../setup/until.ts'

/**
 * Roles in separate processes sharing one `svc engine` over CLICKHOUSE_URL (server mode, the
 * production code path): what one process writes another serves, and the API rides out a
 * restart of the engine (503 while it is down, answering again once it is back, without a restart).
 */
describe('roles on the shared engine', () => {
  const engineDir = tempDir('svc-engine-roles-')
  const apiDir = tempDir('svc-engine-api-')
  const cliDir = tempDir('svc-engine-cli-')
  let engine: TestEngine
  let api: SvcServer
  // A request timeout well above the default 5 s: the API's start runs the migrations, and on a
  // machine this loaded one DDL statement may take longer (the engine stopped is a refused
  // connection, answered at once whatever the timeout).
  const roleEnv = () => ({ ...engine.env, KAFKA_BROKERS: '', REDIS_URL: '', LOG_LEVEL: 'warn', SVC_ADMIN_TOKEN: 'engine-roles-admin-token-0001', CLICKHOUSE_REQUEST_TIMEOUT_MS: '30000' })

  beforeAll(async () => {
    engine = await startTestEngine(engineDir.path)
    api = await startSvcServer(['api'], await freePort(), { ...roleEnv(), DATA_DIR: apiDir.path })
  })
  afterAll(async () => {
    await api?.stop()
    await engine?.svc.stop()
    for (const d of [engineDir, apiDir, cliDir]) d.cleanup()
  })

  it('serves a key that another process created', async () => {
    const created = await runSvc(['keys', 'create', 'signal_feed'], { ...roleEnv(), DATA_DIR: cliDir.path })
    expect(created.code, created.stderr).toBe(0)
    const { key } = JSON.parse(created.stdout.trim().split('\n').pop()!) as { key: string }
    const res = await fetch(`${api.base}/watchlist`, { headers: { 'x-svc-key': key } })
    expect(res.status).toBe(200)
    expect((await fetch(`${api.base}/watchlist`, { headers: { 'x-svc-key': `svc_live_${'Z'.repeat(32)}` } })).status).toBe(401)
  })

  it('runs the SQL door\'s queries as the engine\'s analyst user, within its grants', async () => {
    const created = await runSvc(['keys', 'create', 'analyst'], { ...roleEnv(), DATA_DIR: cliDir.path })
    expect(created.code, created.stderr).toBe(0)
    const { key } = JSON.parse(created.stdout.trim().split('\n').pop()!) as { key: string }
    const door = async (query: string) => {
      const res = await fetch(`${api.base}/clickhouse?default_format=JSONEachRow`, { method: 'POST', headers: { 'x-clickhouse-key': key }, body: query })
      return { status: res.status, text: (await res.text()).trim() }
    }
    expect(await door('SELECT currentUser() AS u')).toEqual({ status: 200, text: '{"u":"analyst"}' })
    expect((await door('SELECT count() AS n FROM chain_blocks')).status).toBe(200)
    // The door refuses a secret table itself; the engine would too (the analyst has no grant on it).
    expect((await door('SELECT count() FROM webhooks')).text).toMatch(/^Code: 497/)
  })

  it('answers 503 while the engine is stopped and serves again once it is back', async () => {
    // /health asks ClickHouse every time (/stats may answer from its cache).
    expect((await fetch(`${api.base}/health`)).status).toBe(200)
    const ports = { httpPort: engine.httpPort, tcpPort: engine.tcpPort }
    expect((await engine.svc.stop()).code).toBe(0)
    const down = await fetch(`${api.base}/health`)
    expect(down.status).toBe(503)
    expect(Object.keys(((await down.json()) as { error: { details: object } }).error.details)).toEqual(['clickhouse'])
    engine = await startTestEngine(engineDir.path, ports)
    await until('/health to answer 200 again', async () => ((await fetch(`${api.base}/health`)).status === 200 ? true : undefined), 20_000)
    expect(api.child.exitCode).toBeNull()
  })
})
