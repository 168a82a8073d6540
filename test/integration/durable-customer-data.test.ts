import { afterAll, describe, expect, it } from 'vitest'
import { startOwnRedis, type OwnRedis } from '../setup/own-redis.ts'
import { freePort, startSvcServer, type SvcServer } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * Customer data (keys, watchlists, webhooks) lives in ClickHouse: a restart of the embedded
 * service keeps it, and so does a Redis that comes back empty. Real `svc` processes throughout.
 */

const ADMIN = 'durable-data-admin-token-0123'
const dirs: Array<{ cleanup(): void }> = []
const running: SvcServer[] = []
let redis: OwnRedis | undefined
afterAll(async () => {
  for (const s of running) await s.stop()
  await redis?.dispose()
  for (const d of dirs) d.cleanup()
})

const call = (url: string, init: RequestInit = {}) =>
  fetch(url, { ...init, signal: AbortSignal.timeout(30_000) }).catch((err: unknown) => {
    throw new Error(`${init.method ?? 'GET'} ${url}: ${err instanceof Error ? err.message : String(err)}`)
  })

const tokenN = (i: number) => `0x${i.toString(16).padStart(40, '0')}`
const WEBHOOK = 'https://127.0.0.1:9/durable-hook'

async function issueKey(base: string): Promise<string> {
  const res = await call(`${base}/admin/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ plan: 'signal_feed' }) })
  expect(res.status).toBe(200)
  return ((await res.json()) as { key: string }).key
}

async function watch(base: string, key: string, token: string, method: 'POST' | 'DELETE' = 'POST') {
  const res = await call(`${base}/watchlist/${token}`, { method, headers: { 'x-svc-key': key } })
  return { status: res.status, body: (await res.json()) as { data?: { tokens: string[] }; error?: { code: string } } }
}

async function watched(base: string, key: string): Promise<string[]> {
  const res = await call(`${base}/watchlist`, { headers: { 'x-svc-key': key } })
  expect(res.status).toBe(200)
  return ((await res.json()) as { data: { tokens: string[] } }).data.tokens
}

async function setWebhook(base: string, key: string): Promise<void> {
  const res = await call(`${base}/alerts/webhook`, { method: 'POST', headers: { 'x-svc-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ url: WEBHOOK }) })
  expect(res.status, await res.clone().text()).toBe(200)
}

async function webhookUrl(base: string, key: string): Promise<string | undefined> {
  const res = await call(`${base}/alerts/webhook`, { headers: { 'x-svc-key': key } })
  expect(res.status).toBe(200)
  return ((await res.json()) as { data: { url: string | null } }).data.url ?? undefined
}

describe('customer data is durable', () => {
  it('a restart of the embedded service keeps keys, watchlists (limit, idempotence) and webhooks', { timeout: 240_000 }, async () => {
    const dir = tempDir()
    dirs.push(dir)
    const env = { DATA_DIR: dir.path, SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', SIMULATOR: 'off', X402_LOCAL_CHAIN: 'off', KAFKA_BROKERS: '', REDIS_URL: '', WEBHOOK_ALLOW_LOOPBACK: 'on' }
    const port = await freePort()
    const first = await startSvcServer(['start'], port, env)
    running.push(first)

    const key = await issueKey(first.base)
    for (let i = 1; i <= 10; i++) expect((await watch(first.base, key, tokenN(i))).status).toBe(200)
    // The 11th is refused; adding a watched token again or removing an unwatched one changes nothing.
    const over = await watch(first.base, key, tokenN(11))
    expect(over.status).toBe(409)
    expect(over.body.error?.code).toBe('conflict')
    expect((await watch(first.base, key, tokenN(3))).body.data?.tokens).toHaveLength(10)
    expect((await watch(first.base, key, tokenN(12), 'DELETE')).body.data?.tokens).toHaveLength(10)
    expect((await watch(first.base, key, tokenN(10), 'DELETE')).body.data?.tokens).toHaveLength(9)
    expect((await watch(first.base, key, tokenN(10), 'DELETE')).body.data?.tokens).toHaveLength(9)
    expect((await watch(first.base, key, tokenN(11))).status).toBe(200)
    const list = await watched(first.base, key)
    expect(list).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 11].map(tokenN))
    await setWebhook(first.base, key)

    // Ad-hoc SQL does not read watchlists, as for the other tables of customer secrets.
    const sql = await call(`${first.base}/admin/sql`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'SELECT * FROM watchlists' }) })
    expect(sql.status).toBe(400)
    expect(await sql.text()).toContain('watchlists')

    await first.stop()
    const second = await startSvcServer(['start'], port, env)
    running.push(second)
    expect(await watched(second.base, key)).toEqual(list)
    expect(await webhookUrl(second.base, key)).toBe(WEBHOOK)
    expect((await watch(second.base, key, tokenN(12))).status).toBe(409)
  })

  it('a Redis that comes back empty loses no key, watchlist or webhook', { timeout: 180_000 }, async () => {
    redis = await startOwnRedis()
    const dir = tempDir()
    dirs.push(dir)
    const api = await startSvcServer(['api'], await freePort(), { DATA_DIR: dir.path, REDIS_URL: redis.url, SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', KAFKA_BROKERS: '', WEBHOOK_ALLOW_LOOPBACK: 'on' }, 60_000)
    running.push(api)
    const key = await issueKey(api.base)
    expect((await watch(api.base, key, tokenN(77))).status).toBe(200)
    await setWebhook(api.base, key)

    await redis.stop()
    await redis.start()
    // The API reconnects on its own (no restart); everything the key owns is still there.
    const deadline = Date.now() + 15_000
    while ((await call(`${api.base}/health`)).status !== 200) {
      expect(Date.now(), 'the API did not see Redis return within 15 s').toBeLessThan(deadline)
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(await watched(api.base, key)).toEqual([tokenN(77)])
    expect(await webhookUrl(api.base, key)).toBe(WEBHOOK)
  })
})
