import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { renderChart } from '../setup/chart-image.ts'
import { requireRedisUrl } from '../setup/services.ts'
import { freePort, startSvcServer, type SvcServer } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'

const ADMIN = 'shared-redis-admin-token-0123'

/** fetch with a deadline, so a request that never answers fails here, naming its URL. */
const call = (url: string, init: RequestInit = {}) =>
  fetch(url, { ...init, signal: AbortSignal.timeout(30_000) }).catch((err: unknown) => {
    throw new Error(`${init.method ?? 'GET'} ${url}: ${err instanceof Error ? err.message : String(err)}`)
  })

/** `svc api` as its own process: its own chDB data path, the shared Redis. */
const startApi = (dataDir: string, port: number) =>
  startSvcServer(['api'], port, { DATA_DIR: dataDir, REDIS_URL: requireRedisUrl(), SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', KAFKA_BROKERS: '' }, 60_000)

const dirs = [tempDir(), tempDir()]
const running: SvcServer[] = []
afterAll(async () => {
  for (const a of running) await a.stop()
  for (const d of dirs) d.cleanup()
})

describe('two API processes sharing Redis', () => {
  it('keys, rate caps and free quotas are shared, and survive a restart of the API (as does a watchlist)', { timeout: 180_000 }, async () => {
    const portA = await freePort()
    const portB = await freePort()
    const [a, b] = await Promise.all([startApi(dirs[0]!.path, portA), startApi(dirs[1]!.path, portB)])
    running.push(a, b)

    const created = await call(`${a.base}/admin/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ plan: 'signal_feed' }) })
    const { key } = (await created.json()) as { key: string }
    const token = `0x${'cd'.repeat(20)}`
    // Issued on A, honoured on B.
    expect((await call(`${b.base}/token/${token}`)).status).toBe(402)
    expect((await call(`${b.base}/token/${token}`, { headers: { 'x-svc-key': key } })).status).toBe(200)
    // Watchlists are customer data in ClickHouse, not in Redis: processes share them through a
    // shared ClickHouse server (each process here has its own chDB). B's is kept across its restart.
    expect((await call(`${b.base}/watchlist/${token}`, { method: 'POST', headers: { 'x-svc-key': key } })).status).toBe(200)
    expect(((await (await call(`${b.base}/watchlist`, { headers: { 'x-svc-key': key } })).json()) as { data: { tokens: string[] } }).data.tokens).toEqual([token])

    // One rate cap across both processes: 30 a minute per IP on the free caller card.
    if (new Date().getSeconds() > 45) await new Promise((r) => setTimeout(r, 16_000))
    const statuses: number[] = []
    for (let i = 0; i < 20; i++) statuses.push((await call(`${a.base}/caller/shared_cap_test`)).status)
    for (let i = 0; i < 11; i++) statuses.push((await call(`${b.base}/caller/shared_cap_test`)).status)
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true)
    expect(statuses[30]).toBe(429)

    // One free dossier quota across both processes: 25 a day per IP on /report, then 402.
    // (The day's count of an earlier run on this Redis is cleared first.)
    const redis = new Redis(requireRedisUrl())
    const stale = [...(await redis.keys('quota:GET:/report/{token}:*')), ...(await redis.keys('quota:POST:/identify:*'))]
    if (stale.length) await redis.del(...stale)
    await redis.quit()
    const report = (api: SvcServer, i: number) => call(`${api.base}/report/0x${i.toString(16).padStart(40, '0')}`)
    const quota: number[] = []
    for (let i = 0; i < 13; i++) quota.push((await report(a, i)).status)
    for (let i = 13; i < 26; i++) quota.push((await report(b, i)).status)
    expect(quota.slice(0, 25).every((s) => s === 200)).toBe(true)
    expect(quota[25]).toBe(402)
    // ...and one identify quota: 5 a day per IP.
    const chart = (await renderChart({ price: '1.25' })).toString('base64')
    const identify = (api: SvcServer) =>
      call(`${api.base}/identify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ image: chart }) }).then((r) => r.status)
    const identified = [await identify(a), await identify(b), await identify(a), await identify(b), await identify(a), await identify(b)]
    expect(identified).toEqual([200, 200, 200, 200, 200, 402])

    // Restart B: the key, the watchlist and the used-up quota are still there.
    await b.stop()
    const b2 = await startApi(dirs[1]!.path, portB)
    running.push(b2)
    expect((await call(`${b2.base}/token/${token}`, { headers: { 'x-svc-key': key } })).status).toBe(200)
    expect(((await (await call(`${b2.base}/watchlist`, { headers: { 'x-svc-key': key } })).json()) as { data: { tokens: string[] } }).data.tokens).toEqual([token])
    expect((await report(b2, 99)).status).toBe(402)
    expect(await identify(b2)).toBe(402)
    expect((await report(a, 98)).status).toBe(402)
  })
})
