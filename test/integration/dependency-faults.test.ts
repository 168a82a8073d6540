import { afterAll, describe, expect, it } from 'vitest'
import { startBlackHole, type BlackHole } from '../setup/black-hole.ts'
import { startOwnRedis, type OwnRedis } from '../setup/own-redis.ts'
import { freePort, runSvc, startSvcServer, type SvcServer } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * Dependency faults degrade cleanly, on real processes: the test's own redis-server stopped,
 * frozen and brought back under a running `svc start` (with its local payments chain, so a
 * paid call is a real x402 payment), and `svc api` pointed at a ClickHouse address that never
 * answers or refuses. Measured times are printed.
 */

const ADMIN = 'dependency-faults-admin-0123'
const dirs: Array<{ cleanup(): void }> = []
const running: SvcServer[] = []
const holes: BlackHole[] = []
let redis: OwnRedis | undefined
afterAll(async () => {
  for (const s of running) await s.stop()
  await redis?.dispose()
  for (const h of holes) await h.close()
  for (const d of dirs) d.cleanup()
})

interface Timed {
  status: number
  ms: number
  body: { error?: { code: string; details?: Record<string, unknown> } } & Record<string, unknown>
}

/** One request, its status, body and wall time; a request that does not answer in 10 s fails the test. */
async function timed(url: string, init: RequestInit = {}): Promise<Timed> {
  const t0 = performance.now()
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) }).catch((err: unknown) => {
    throw new Error(`${init.method ?? 'GET'} ${url} did not answer: ${err instanceof Error ? err.message : String(err)}`)
  })
  const text = await res.text()
  const ms = Math.round(performance.now() - t0)
  console.log(`[faults] ${init.method ?? 'GET'} ${new URL(url).pathname} -> ${res.status} in ${ms} ms`)
  return { status: res.status, ms, body: text.startsWith('{') ? JSON.parse(text) : {} }
}

async function waitForHealth(base: string, status: number, withinMs: number): Promise<number> {
  const t0 = Date.now()
  while ((await fetch(`${base}/health`, { signal: AbortSignal.timeout(5_000) })).status !== status) {
    if (Date.now() - t0 > withinMs) throw new Error(`/health did not answer ${status} within ${withinMs} ms`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return Date.now() - t0
}

const token = `0x${'ef'.repeat(20)}`

describe('Redis unreachable under a running service', () => {
  it('free endpoints answer, key/paid/free-quota calls fail closed with 503 within 2 s, and all recover without a restart', { timeout: 300_000 }, async () => {
    redis = await startOwnRedis()
    const dir = tempDir()
    dirs.push(dir)
    const env = { DATA_DIR: dir.path, REDIS_URL: redis.url, SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', SIMULATOR: 'off', KAFKA_BROKERS: '' }
    const port = await freePort()
    const svc = await startSvcServer(['start'], port, env, 120_000)
    running.push(svc)
    const issue = async () => {
      const r = await timed(`${svc.base}/admin/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ plan: 'signal_feed' }) })
      expect(r.status).toBe(200)
      return r.body.key as string
    }
    const pay = async () => {
      const r = await runSvc(['pay', '/leaderboard', '--fund', '1'], { ...env, PORT: String(port) })
      return JSON.parse(r.stdout) as { status: number; paid: unknown; body: { data?: unknown; error?: { code: string } } }
    }
    const key = await issue()
    const withKey = { headers: { 'x-svc-key': key } }
    expect((await timed(`${svc.base}/watchlist/${token}`, { method: 'POST', ...withKey })).status).toBe(200)
    expect((await pay()).status).toBe(200)

    // --- Redis stopped ---
    await redis.stop()
    // A key verified in the last 5 s may still be trusted from memory: wait that out.
    await new Promise((r) => setTimeout(r, 5_500))
    for (const path of ['/stats', '/caller/faults_test', `/search?q=abc`]) {
      const r = await timed(`${svc.base}${path}`)
      expect(r.status, path).toBe(200)
      expect(r.ms, path).toBeLessThan(2_000)
    }
    for (const [path, init] of [['/watchlist', withKey], [`/token/${token}`, withKey], [`/report/${token}`, {}]] as const) {
      const r = await timed(`${svc.base}${path}`, init)
      expect(r.status, path).toBe(503)
      expect(r.body.error).toMatchObject({ code: 'dependency_unavailable', details: { dependency: 'store' } })
      expect(r.ms, path).toBeLessThan(2_000)
    }
    const health = await timed(`${svc.base}/health`)
    expect(health.status).toBe(503)
    expect(Object.keys(health.body.error?.details ?? {})).toEqual(['store'])
    // A real x402 payment is refused, never served: its replay guard cannot be checked.
    const unpaid = await pay()
    console.log(`[faults] x402-paid /leaderboard with Redis stopped -> ${unpaid.status} ${JSON.stringify(unpaid.body)}`)
    expect([402, 503]).toContain(unpaid.status)
    expect(unpaid.paid).toBeNull()
    expect(unpaid.body.data).toBeUndefined()

    // --- Redis back (empty): everything answers again, same process ---
    await redis.start()
    console.log(`[faults] /health back to 200 ${await waitForHealth(svc.base, 200, 15_000)} ms after Redis restarted`)
    expect((await timed(`${svc.base}/watchlist`, withKey)).body).toMatchObject({ data: { tokens: [token] } })
    expect((await timed(`${svc.base}/report/${token}`)).status).toBe(200)
    expect((await pay()).status).toBe(200)

    // --- Redis hung (SIGSTOP: connections open, no answers) ---
    const fresh = await issue()
    redis.freeze()
    try {
      // Answers cached in process, and ones that are not (a rate-capped card, a new search).
      for (const path of ['/stats', '/caller/frozen_probe', '/search?q=frozen']) {
        const free = await timed(`${svc.base}${path}`)
        expect(free.status, path).toBe(200)
        expect(free.ms, path).toBeLessThan(2_000)
      }
      const keyed = await timed(`${svc.base}/watchlist`, { headers: { 'x-svc-key': fresh } })
      expect(keyed.status).toBe(503)
      expect(keyed.ms).toBeLessThan(2_000)
      expect((await timed(`${svc.base}/report/${token}`)).status).toBe(503)
    } finally {
      redis.thaw()
    }
    await waitForHealth(svc.base, 200, 15_000)
    expect((await timed(`${svc.base}/watchlist`, { headers: { 'x-svc-key': fresh } })).status).toBe(200)
    expect(svc.child.exitCode).toBeNull()
  })
})

describe('Redis unreachable from the start', () => {
  it('svc api comes up: free endpoints answer, key endpoints 503, /health names the store', { timeout: 120_000 }, async () => {
    const dir = tempDir()
    dirs.push(dir)
    const env = { DATA_DIR: dir.path, REDIS_URL: `redis://127.0.0.1:${await freePort()}`, SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'fatal', KAFKA_BROKERS: '' }
    const api = await startSvcServer(['api'], await freePort(), env, 60_000, (status) => status === 503)
    running.push(api)
    for (const path of ['/stats', '/caller/from_start']) {
      const r = await timed(`${api.base}${path}`)
      expect(r.status, path).toBe(200)
      expect(r.ms, path).toBeLessThan(2_000)
    }
    // The caller card's cap (30 a minute per IP) is counted in process meanwhile.
    if (new Date().getSeconds() > 50) await new Promise((r) => setTimeout(r, 11_000))
    const capped: number[] = []
    for (let i = 0; i < 31; i++) capped.push((await fetch(`${api.base}/caller/cap_probe`)).status)
    // 30 in the window, counting /caller/from_start above when it fell in the same minute.
    expect([29, 30]).toContain(capped.filter((s) => s === 200).length)
    expect(capped[30]).toBe(429)
    const keyed = await timed(`${api.base}/watchlist`, { headers: { 'x-svc-key': `svc_live_${'B'.repeat(32)}` } })
    expect(keyed.status).toBe(503)
    expect(keyed.ms).toBeLessThan(2_000)
    expect(Object.keys((await timed(`${api.base}/health`)).body.error?.details ?? {})).toEqual(['store'])
  })
})

/** A black hole closed after the file's tests. */
async function blackHole(): Promise<number> {
  const hole = await startBlackHole()
  holes.push(hole)
  return hole.port
}

describe('ClickHouse unreachable', () => {
  const TIMEOUT_MS = 1_500
  const startApi = async (clickhouseUrl: string) => {
    const dir = tempDir()
    dirs.push(dir)
    const env = { DATA_DIR: dir.path, CLICKHOUSE_URL: clickhouseUrl, CLICKHOUSE_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'fatal', KAFKA_BROKERS: '', REDIS_URL: '' }
    const api = await startSvcServer(['api'], await freePort(), env, 60_000, (status) => status === 503)
    running.push(api)
    return api
  }

  it('a server that never answers: 503 within the request timeout, /health names it, the process stays up', { timeout: 120_000 }, async () => {
    const api = await startApi(`http://127.0.0.1:${await blackHole()}`)
    for (let round = 0; round < 3; round++) {
      for (const path of ['/stats', '/caller/faults_test', `/wallet/${token}`]) {
        const r = await timed(`${api.base}${path}`)
        expect(r.status, path).toBe(503)
        expect(r.body.error).toMatchObject({ code: 'dependency_unavailable', details: { dependency: 'clickhouse' } })
        expect(r.ms, path).toBeLessThan(TIMEOUT_MS + 1_000)
      }
    }
    const health = await timed(`${api.base}/health`)
    expect(health.status).toBe(503)
    expect(Object.keys(health.body.error?.details ?? {})).toEqual(['clickhouse'])
    // Paid data without a key or payment is still a 402, and a key cannot be checked: 503.
    expect((await timed(`${api.base}/token/${token}`)).status).toBe(402)
    expect((await timed(`${api.base}/watchlist`, { headers: { 'x-svc-key': `svc_live_${'A'.repeat(32)}` } })).status).toBe(503)
    await new Promise((r) => setTimeout(r, 2_000))
    expect(api.child.exitCode).toBeNull()
    expect((await timed(`${api.base}/stats`)).status).toBe(503)
  })

  it('a refused connection: 503 at once, the process stays up', { timeout: 120_000 }, async () => {
    const api = await startApi(`http://127.0.0.1:${await freePort()}`)
    const r = await timed(`${api.base}/stats`)
    expect(r.status).toBe(503)
    expect(r.body.error?.details).toEqual({ dependency: 'clickhouse' })
    expect(r.ms).toBeLessThan(1_000)
    expect(api.child.exitCode).toBeNull()
  })
})
