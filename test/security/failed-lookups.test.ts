import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBoundedCache } from '../../core/serving/bounded-cache.ts'
import { FAILED_LOOKUPS_PER_MINUTE } from '../../api/access/failed-lookups.ts'
import { createKeyRegistry, generateKey, KEY_CACHE_ENTRIES } from '../../api/access/keys.ts'
import { CONNECTION_CACHE_ENTRIES, createMcpConnector } from '../../api/access/mcp-connector.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'

/**
 * Guessing keys or connection tokens is capped per client address (429 with Retry-After past
 * FAILED_LOOKUPS_PER_MINUTE failures a minute, refused before any lookup), and the caches of
 * lookups, keyed by whatever a caller presents, are bounded.
 */
let env: Embedded

beforeAll(async () => {
  env = await startEmbedded()
})
afterAll(async () => env?.close())

const unknownConn = () => `svc_conn_${randomBytes(30).toString('base64url')}`

/** Lookups that missed the in-process cache of `cache` (each one asked the store or the engine). */
async function misses(cache: string): Promise<number> {
  const m = new RegExp(`svc_cache_lookups_total\\{cache="${cache}",result="miss"\\} (\\d+)`).exec(await env.rt.metrics.render())
  return m ? Number(m[1]) : 0
}

/** Start early in a clock minute: the cap counts per minute, and a test must not straddle two. */
async function freshMinute() {
  if (new Date().getSeconds() > 50) await new Promise((r) => setTimeout(r, (61 - new Date().getSeconds()) * 1000))
}

const get = (url: string, headers: Record<string, string>, remoteAddress: string) => env.api.app.inject({ method: 'GET', url, headers, remoteAddress })
const mcp = (token: string, remoteAddress: string) =>
  env.api.app.inject({
    method: 'POST', url: '/mcp', remoteAddress,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  })

describe('failed key and token lookups are capped per client address', () => {
  it(`${FAILED_LOOKUPS_PER_MINUTE} unknown keys a minute answer 401; then 429 with Retry-After, with no lookup, while other addresses are served`, { timeout: 90_000 }, async () => {
    await freshMinute()
    const { key } = await env.api.deps.keys.create('signal_feed')
    const before = await misses('api_keys')
    const statuses: number[] = []
    for (let i = 0; i < 100; i++) statuses.push((await get('/watchlist', { 'x-svc-key': generateKey() }, '203.0.113.5')).statusCode)
    expect(statuses.slice(0, FAILED_LOOKUPS_PER_MINUTE).every((s) => s === 401)).toBe(true)
    expect(statuses.slice(FAILED_LOOKUPS_PER_MINUTE).every((s) => s === 429)).toBe(true)
    // 100 distinct made-up keys cost at most the cap in lookups.
    expect((await misses('api_keys')) - before).toBeLessThanOrEqual(FAILED_LOOKUPS_PER_MINUTE)

    const limited = await get('/watchlist', { 'x-svc-key': generateKey() }, '203.0.113.5')
    expect(limited.json().error.code).toBe('rate_limited')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60)
    // The address's lookups are refused until the minute ends, a real key's too; another address is served.
    expect((await get('/watchlist', { 'x-svc-key': key }, '203.0.113.5')).statusCode).toBe(429)
    expect((await get('/watchlist', { 'x-svc-key': key }, '203.0.113.6')).statusCode).toBe(200)
    // A key verified moments ago is answered from memory, with no lookup to refuse: also from the
    // exhausted address (the cap guards lookups, and a key held is not guessed).
    const missed = await misses('api_keys')
    expect((await get('/watchlist', { 'x-svc-key': key }, '203.0.113.5')).statusCode).toBe(200)
    expect(await misses('api_keys')).toBe(missed)
  })

  it('malformed credentials are refused at once and not counted: they are never looked up and can never succeed', async () => {
    const { key } = await env.api.deps.keys.create('signal_feed')
    for (let i = 0; i < FAILED_LOOKUPS_PER_MINUTE * 2; i++) {
      for (const bad of [`svc_live_${i}`, 'invalid']) expect((await get('/watchlist', { 'x-svc-key': bad }, '203.0.113.9')).statusCode).toBe(401)
      expect((await mcp(`svc_conn_${i}`, '203.0.113.9')).statusCode).toBe(401)
    }
    expect((await get('/watchlist', { 'x-svc-key': key }, '203.0.113.9')).statusCode).toBe(200)
  })

  it('unknown connection tokens at /mcp: 401 up to the cap, then 429 with Retry-After, and at most the cap in engine lookups', { timeout: 90_000 }, async () => {
    await freshMinute()
    const before = await misses('connection_tokens')
    const answers = []
    for (let i = 0; i < 100; i++) answers.push(await mcp(unknownConn(), '203.0.113.7'))
    expect(answers.slice(0, FAILED_LOOKUPS_PER_MINUTE).every((r) => r.statusCode === 401)).toBe(true)
    expect(answers.slice(FAILED_LOOKUPS_PER_MINUTE).every((r) => r.statusCode === 429)).toBe(true)
    expect(answers[99]!.headers['retry-after']).toMatch(/^\d+$/)
    expect((await misses('connection_tokens')) - before).toBeLessThanOrEqual(FAILED_LOOKUPS_PER_MINUTE)
  })

  it('an IPv6 client is counted by its /64: a fresh address per guess does not escape the cap', { timeout: 90_000 }, async () => {
    await freshMinute()
    const statuses: number[] = []
    for (let i = 1; i <= FAILED_LOOKUPS_PER_MINUTE + 1; i++) statuses.push((await get('/watchlist', { 'x-svc-key': generateKey() }, `2001:db8:5:6::${i.toString(16)}`)).statusCode)
    expect(statuses.slice(0, FAILED_LOOKUPS_PER_MINUTE).every((s) => s === 401)).toBe(true)
    expect(statuses[FAILED_LOOKUPS_PER_MINUTE]).toBe(429)
    // Another /64 is another client.
    expect((await get('/watchlist', { 'x-svc-key': generateKey() }, '2001:db8:5:7::1')).statusCode).toBe(401)
  })

  it('wrong operator tokens count too', { timeout: 90_000 }, async () => {
    await freshMinute()
    const statuses: number[] = []
    for (let i = 0; i < FAILED_LOOKUPS_PER_MINUTE + 1; i++) statuses.push((await get('/admin/keys', { authorization: `Bearer guess-${i}` }, '203.0.113.8')).statusCode)
    expect(statuses.slice(0, FAILED_LOOKUPS_PER_MINUTE).every((s) => s === 403)).toBe(true)
    expect(statuses[FAILED_LOOKUPS_PER_MINUTE]).toBe(429)
  })

  it('the same unknown token presented again within the cache time costs no second lookup', async () => {
    const connector = createMcpConnector(env.rt.ch, env.rt.store)
    const token = unknownConn()
    const before = await misses('connection_tokens')
    for (let i = 0; i < 5; i++) expect(await connector.keyHashOf(token)).toBeNull()
    expect((await misses('connection_tokens')) - before).toBe(1)
    // A token of the wrong shape is refused without a lookup at all.
    expect(await connector.keyHashOf('svc_conn_short')).toBeNull()
    expect((await misses('connection_tokens')) - before).toBe(1)
  })
})

describe('caches keyed by what a caller presents are bounded', () => {
  it('the connection-token and key caches hold at most their bound, however many distinct values are tried', async () => {
    const connector = createMcpConnector(env.rt.ch, env.rt.store, { cacheEntries: 16 })
    const keys = createKeyRegistry(env.rt.ch, env.rt.store, { cacheEntries: 16 })
    for (let i = 0; i < 200; i++) {
      expect(await connector.keyHashOf(unknownConn())).toBeNull()
      expect(await keys.verify(generateKey())).toBeNull()
    }
    expect(connector.cacheSize()).toBe(16)
    expect(keys.cacheSize()).toBe(16)
    // The service's own caches have a bound too, and respect it.
    expect(CONNECTION_CACHE_ENTRIES).toBeLessThanOrEqual(10_000)
    expect(KEY_CACHE_ENTRIES).toBeLessThanOrEqual(10_000)
    expect(env.api.deps.connector!.cacheSize()).toBeLessThanOrEqual(CONNECTION_CACHE_ENTRIES)
    expect(env.api.deps.keys.cacheSize()).toBeLessThanOrEqual(KEY_CACHE_ENTRIES)
  })

  it('createBoundedCache evicts the least recently used entry and forgets entries past their time', async () => {
    const c = createBoundedCache<number>(2, 50)
    c.set('a', 1)
    c.set('b', 2)
    expect(c.get('a')).toBe(1) // a is now the most recently used
    c.set('c', 3)
    expect(c.size()).toBe(2)
    expect(c.get('b')).toBeUndefined()
    expect(c.get('a')).toBe(1)
    await new Promise((r) => setTimeout(r, 60))
    expect(c.get('a')).toBeUndefined()
    expect(c.get('c')).toBeUndefined()
  })
})
