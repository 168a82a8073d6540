import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../api/app.ts'
import { createAccessGate } from '../../api/access/gate.ts'
import { catalog } from '../../api/catalog/index.ts'
import { z } from 'zod'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { ServedEndpoint } from '../../core/endpoint/deps.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'
import { until } from '../setup/until.ts'
import { KEPT_LANE_MAX_URL_CHARS, KEPT_LANE_URLS } from '../../api/kept-lane.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { claimRow, LeaderboardClaim } from '../../products/wallet/leaderboard-claim.ts'

/**
 * The kept lane (api/kept-lane.ts): a GET the router answered from memory is answered again
 * before Fastify, with the same status, headers and bytes; what memory cannot decide still goes
 * through Fastify. Real HTTP (app.inject never reaches a server's request listeners), one
 * embedded world; which path answered is read from svc_http_kept_lane_answers_total.
 */
let env: Embedded
let base: string
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '300' })
  await env.ingestThrough(900)
  base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
  await untilStill()
}, 180_000)
afterAll(async () => env?.close())

const laneAnswers = async () => env.rt.metrics.httpRequests.keptLaneAnswers()

/**
 * Where the world the answers are made of stands: the chain's serving changes and the social
 * rows. Either moving means a kept answer is made again (and, until the next call syncs, not
 * kept): the social consumers and the grader go on for a while after the chain's last batch, for
 * seconds on a busy machine.
 */
const worldMark = () => `${env.api.watermarks.seq(4663)}|${env.api.watermarks.socialChainVersion(4663)}`

/** Until the world stood still for a second (at most a minute). */
async function untilStill(): Promise<void> {
  let mark = worldMark()
  let since = Date.now()
  await until('the world to stand still for a second', () => {
    const now = worldMark()
    if (now !== mark) [mark, since] = [now, Date.now()]
    return Date.now() - since >= 1_000 ? true : undefined
  })
}

/**
 * `attempt`'s checks, asserted in full once the world stood still through an attempt; an attempt
 * the world moved under (its answers may differ, or not be kept for a call) is made again.
 */
async function whileStill(what: string, attempt: () => Promise<void>): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const mark = worldMark()
    let failure: unknown
    await attempt().catch((err: unknown) => (failure = err))
    if (worldMark() === mark) {
      if (failure) throw failure
      return
    }
    await untilStill()
  }
  throw new Error(`${what}: the world moved under ten attempts`)
}

/**
 * Two of the chain's traders made the tracked roster (a leaderboard row each, as the claims
 * processor stores them), once their receipts answer found:true; answers the first.
 */
async function loadRoster(): Promise<string> {
  const traders = await queryRows<{ trader: string }>(env.rt.ch, 'SELECT DISTINCT trader FROM swaps WHERE chain_id = 4663 ORDER BY trader LIMIT 2')
  expect(traders.length).toBe(2)
  const claimedAt = new Date().toISOString()
  const claims = traders.map(({ trader }, i) => LeaderboardClaim.parse({ source: 'kept-lane', wallet: trader, rank: i + 1, claimed_pnl_usd_30d: 1000, claimed_at: claimedAt }))
  await env.rt.ch.insert({ table: 'leaderboard_claims', values: claims.map(claimRow), format: 'JSONEachRow' })
  const wallet = traders[0]!.trader
  await until('the roster to be read', async () => ((await (await fetch(`${base}/wallet-receipt/${wallet}`, { headers: admin })).json()) as { data: { found: boolean } }).data.found || undefined)
  return wallet
}

async function issue(plan: string): Promise<{ key: string; prefix: string }> {
  const r = await fetch(`${base}/admin/keys`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ plan }) })
  expect(r.status).toBe(200)
  return (await r.json()) as { key: string; prefix: string }
}

/** An answer as a client sees it: status, the headers that describe the body, the bytes. */
async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; length: string | null; body: Buffer }> {
  const r = await fetch(base + path, { headers })
  return { status: r.status, type: r.headers.get('content-type'), length: r.headers.get('content-length'), body: Buffer.from(await r.arrayBuffer()) }
}

/** A GET sent with a body (fetch will not send one). */
function getWithBody(path: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(base + path)
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'GET', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode!))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('the kept lane', () => {
  it('answers a repeated GET with the same status, headers and bytes as Fastify', async () => {
    const { key } = await issue('signal_feed')
    const keyed = { 'x-svc-key': key }
    const launches = ((await (await fetch(`${base}/feed/new?limit=5`, { headers: keyed })).json()) as { data: { launches: Array<{ token: string; deployer: string }> } }).data.launches
    expect(launches.length).toBeGreaterThan(1)
    const [a, b] = launches
    // Every endpoint with a `kept` answer (`/token`, `/verdict`, `/wallet-receipt`, `/structure`):
    // known tokens and a roster wallet, and a token and a wallet never seen.
    const rosterWallet = await loadRoster()
    const paths = [
      `/token/${a!.token}`, `/token/${b!.token}`, `/token/0x${'12'.repeat(20)}`, `/verdict/${a!.token}`, `/verdict/${b!.token}`, `/verdict/0x${'12'.repeat(20)}`,
      `/wallet-receipt/${rosterWallet}`, `/wallet-receipt/0x${'12'.repeat(20)}`, `/structure/${a!.token}`, `/structure/${b!.token}`,
    ]
    for (const path of paths) {
      await whileStill(path, async () => {
        // A token not kept yet is read once (its answer is then kept).
        await get(path, keyed)
        const before = await laneAnswers()
        const first = await get(path, keyed)
        const second = await get(path, keyed)
        const third = await get(path, keyed)
        expect(first.status, path).toBe(200)
        for (const again of [second, third]) {
          expect({ status: again.status, type: again.type, length: again.length }, path).toEqual({ status: first.status, type: first.type, length: first.length })
          expect(again.body.equals(first.body), `${path}: the same bytes`).toBe(true)
        }
        // The first call taught the lane its URL (it may have been learnt earlier); the repeats took it.
        expect((await laneAnswers()) - before, path).toBeGreaterThanOrEqual(2)
      })
    }
  })

  it('counts its answers in the request metrics under the route Fastify names', async () => {
    const { key } = await issue('desk')
    const path = `/token/0x${'34'.repeat(20)}`
    // Read once (then kept), answered from memory once (then learnt).
    await get(path, { 'x-svc-key': key })
    await get(path, { 'x-svc-key': key })
    const before = env.rt.metrics.httpRequests.count('/token/:address', 200)
    const lane = await laneAnswers()
    for (let i = 0; i < 5; i++) expect((await get(path, { 'x-svc-key': key })).status).toBe(200)
    expect(env.rt.metrics.httpRequests.count('/token/:address', 200) - before).toBe(5)
    expect((await laneAnswers()) - lane).toBe(5)
  })

  it('leaves to Fastify what memory cannot decide: no key, a key not held, the operator token, a plan without the feature, a body', async () => {
    const feed = await issue('signal_feed')
    const founders = await issue('founders')
    const token = ((await (await fetch(`${base}/feed/new?limit=1`, { headers: { 'x-svc-key': feed.key } })).json()) as { data: { launches: Array<{ token: string }> } }).data.launches[0]!.token
    const tokenPath = `/token/${token}`
    const historyPath = `/structure/${token}/history`
    // Both URLs learnt by the lane through a key that may call them.
    expect((await get(tokenPath, { 'x-svc-key': feed.key })).status).toBe(200)
    expect((await get(historyPath, { 'x-svc-key': feed.key })).status).toBe(200)
    const lane = await laneAnswers()

    // Paid without a key: the 402.
    expect((await fetch(base + tokenPath)).status).toBe(402)
    // A key never issued, then a key revoked after it was held.
    expect((await get(tokenPath, { 'x-svc-key': `svc_live_${'x'.repeat(32)}` })).status).toBe(401)
    const revoked = await issue('desk')
    expect((await get(tokenPath, { 'x-svc-key': revoked.key })).status).toBe(200)
    const afterHeld = await laneAnswers()
    const r = await fetch(`${base}/admin/keys/${revoked.prefix}`, { method: 'DELETE', headers: admin })
    expect(r.status).toBe(200)
    expect((await get(tokenPath, { 'x-svc-key': revoked.key })).status).toBe(401)
    // The operator token and a plan without the endpoint's feature.
    expect((await get(tokenPath, admin)).status).toBe(200)
    expect((await get(historyPath, { 'x-svc-key': founders.key })).status).toBe(403)
    // A GET that sends a body: Fastify reads it (and answers as before).
    expect(await getWithBody(tokenPath, { 'x-svc-key': feed.key }, '{}')).toBe(200)

    // Only the held desk key's call before its revocation could take the lane.
    expect(afterHeld - lane).toBeLessThanOrEqual(1)
    expect(await laneAnswers()).toBe(afterHeld)
  })

  it('is not in front of a server behind a trusted proxy: the client address is Fastify\'s to work out', async () => {
    const app = await buildApp({
      deps: { ...env.api.deps, config: { ...env.rt.config, TRUST_PROXY: 1 } },
      gate: createAccessGate({ adminToken: undefined, store: env.rt.store, keys: env.api.deps.keys }),
      catalog,
    })
    try {
      const proxied = await app.listen({ port: 0, host: '127.0.0.1' })
      const { key } = await issue('desk')
      const lane = await laneAnswers()
      for (let i = 0; i < 3; i++) expect((await fetch(`${proxied}/token/0x${'56'.repeat(20)}`, { headers: { 'x-svc-key': key } })).status).toBe(200)
      expect(await laneAnswers()).toBe(lane)
    } finally {
      await app.close()
    }
  })

  it('leaves an answer whose body cannot be written to Fastify: a 500 in the error model, every time, and the server serves on', async () => {
    // A kept answer JSON cannot write (a bigint): the router answers 500 and still learns the URL.
    const unwritable = defineEndpoint()({
      method: 'GET', path: '/test/unwritable', summary: 'test', description: 'test', tags: ['token'],
      response: z.object({}), access: { kind: 'free' },
      kept: () => ({ data: { n: 1n } }) as never,
      handler: async () => ({ data: { n: 1n } }) as never,
    }) as unknown as ServedEndpoint
    const app = await buildApp({ deps: env.api.deps, gate: createAccessGate({ adminToken: undefined, store: env.rt.store, keys: env.api.deps.keys }), catalog: [...catalog, unwritable] })
    try {
      const own = await app.listen({ port: 0, host: '127.0.0.1' })
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${own}/test/unwritable`)
        expect(r.status).toBe(500)
        expect(((await r.json()) as { error: { code: string } }).error.code).toBe('internal_error')
      }
      expect((await fetch(`${own}/stats`)).status).toBe(200)
    } finally {
      await app.close()
    }
  })

  /** A key and a kept token's plain answer, for the attacker's-view tests below. */
  async function keptToken(): Promise<{ keyed: Record<string, string>; token: string; plain: Awaited<ReturnType<typeof get>> }> {
    const { key } = await issue('signal_feed')
    const keyed = { 'x-svc-key': key }
    const token = ((await (await fetch(`${base}/feed/new?limit=1`, { headers: keyed })).json()) as { data: { launches: Array<{ token: string }> } }).data.launches[0]!.token
    const plain = await get(`/token/${token}`, keyed)
    expect(plain.status).toBe(200)
    return { keyed, token, plain }
  }

  it('takes a percent-encoded spelling of a kept URL as a URL of its own with the same answer, and learns none that is refused', async () => {
    const { keyed, token, plain } = await keptToken()
    // The address's first hex digit percent-encoded: Fastify decodes it to the same address.
    const encoded = `/token/0x%${token.charCodeAt(2).toString(16)}${token.slice(3)}`
    await get(encoded, keyed)
    const before = await laneAnswers()
    for (let i = 0; i < 3; i++) {
      const again = await get(encoded, keyed)
      expect(again.status).toBe(200)
      expect(again.body.equals(plain.body), 'the same bytes as the plain spelling').toBe(true)
    }
    expect((await laneAnswers()) - before).toBe(3)
    // Spellings the endpoint refuses: quoted, a NUL, a broken escape, the address twice. Each is
    // answered 400 by Fastify every time, and never taken by the lane.
    const refused = [`/token/%22${token}%22`, `/token/${token}%00`, `/token/0x%ZZ${token.slice(4)}`, `/token/${token}${token.slice(2)}`]
    const beforeRefused = await laneAnswers()
    for (const path of refused) {
      for (let i = 0; i < 3; i++) expect((await get(path, keyed)).status, path).toBe(400)
    }
    expect(await laneAnswers()).toBe(beforeRefused)
  })

  it(`does not learn a URL longer than ${KEPT_LANE_MAX_URL_CHARS} characters: a padded query string goes to Fastify every time`, async () => {
    const { keyed, token, plain } = await keptToken()
    const padded = `/token/${token}?pad=${'a'.repeat(KEPT_LANE_MAX_URL_CHARS)}`
    const short = `/token/${token}?pad=a`
    await get(padded, keyed)
    await get(short, keyed)
    const before = await laneAnswers()
    for (let i = 0; i < 3; i++) {
      const again = await get(padded, keyed)
      expect(again.status).toBe(200)
      expect(again.body.equals(plain.body)).toBe(true)
    }
    expect(await laneAnswers()).toBe(before)
    // The same query, short: learnt and taken (the length decides, not the query).
    for (let i = 0; i < 3; i++) expect((await get(short, keyed)).body.equals(plain.body)).toBe(true)
    expect((await laneAnswers()) - before).toBe(3)
  })

  it(`forgets its least recently used URL when a flood of distinct URLs passes ${KEPT_LANE_URLS}`, { timeout: 120_000 }, async () => {
    const { keyed, token } = await keptToken()
    const flood = Array.from({ length: KEPT_LANE_URLS + 1 }, (_, i) => `/token/${token}?n=${i}`)
    // Each learnt, in order: asked until the lane answers it (the router learns a URL it answered
    // from memory; one asked while its answer or the key's grant was being read again is not).
    // The first alone, so it is the least recently used of them; the rest eight at a time.
    const learnt = async (paths: string[]) => {
      for (let tries = 0; ; tries++) {
        const before = await laneAnswers()
        await Promise.all(paths.map(async (path) => { const r = await get(path, keyed); expect(r.status, r.body.toString().slice(0, 300)).toBe(200) }))
        if ((await laneAnswers()) - before === paths.length) return
        if (tries === 10) throw new Error(`the lane never took ${paths.join(', ')}`)
      }
    }
    await learnt([flood[0]!])
    for (let i = 1; i < flood.length; i += 8) await learnt(flood.slice(i, i + 8))
    const before = await laneAnswers()
    // The last learnt is still known; the first, forgotten, goes through Fastify.
    await get(flood.at(-1)!, keyed)
    expect((await laneAnswers()) - before).toBe(1)
    await get(flood[0]!, keyed)
    expect((await laneAnswers()) - before).toBe(1)
  })
})
