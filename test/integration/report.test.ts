import { decodePaymentRequiredHeader } from '@x402/core/http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { createAccessGate } from '../../api/access/gate.ts'
import { buildApp } from '../../api/app.ts'
import { catalog } from '../../api/catalog/index.ts'
import { reportEndpoint } from '../../products/verdict/report-endpoint.ts'
import { verdictEndpoint } from '../../products/verdict/verdict-endpoint.ts'
import type { BusRecord } from '../../core/bus/types.ts'
import type { SocialPost } from '../../pipelines/records/social.ts'
import { TOPICS } from '../../core/bus/topics.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'

/**
 * The token dossier (/report, mixed: free 25 per day per IP, then x402) and the verdict
 * (/verdict, paid) on the simulated world, held against /token, /deployer, /mentions, /caller
 * and the raw tables.
 */
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
const UNKNOWN = `0x${'12'.repeat(20)}`
let env: Embedded
let postSeq = 0

beforeAll(async () => {
  // x402 on (a pay-to address and a facilitator that is never reached: no payment is presented
  // here), so an exhausted free quota answers the x402 402 with its PAYMENT-REQUIRED header.
  // Chain data from the simulator; social posts are written by the tests, so every caller is known.
  env = await startEmbedded(
    { PIPELINE_BATCH_BLOCKS: '200', X402_PAY_TO: `0x${'5a'.repeat(20)}`, X402_FACILITATOR_URL: 'http://127.0.0.1:9/facilitator' },
    { social: false },
  )
  // Past an hour of chain time (2 s blocks), so that calls can be graded.
  await env.ingestThrough(3000)
})
afterAll(async () => env?.close())

async function get(url: string, headers: Record<string, string> = admin, remoteAddress = '127.0.0.1') {
  const res = await env.api.app.inject({ method: 'GET', url, headers, remoteAddress })
  return { status: res.statusCode, headers: res.headers, json: () => res.json() }
}

function post(author: string, at: number, text: string): SocialPost {
  return { id: `r${postSeq++}`, author, posted_at: at, captured_at: at + 5, text, links: [] }
}

async function publish(topic: string, records: object[]): Promise<void> {
  await env.rt.bus.publish(topic, records.map((r): BusRecord => ({ key: null, value: JSON.stringify(r) })))
}

const count = async (table: string) => Number((await queryRows<{ n: string }>(env.rt.ch, `SELECT count() AS n FROM ${table}`))[0]!.n)

/** Wait until the social processor has stored at least this many rows. */
async function settle(table: string, atLeast: number): Promise<void> {
  const deadline = Date.now() + 20_000
  while ((await count(table)) < atLeast) {
    if (Date.now() > deadline) throw new Error(`${table} has fewer than ${atLeast} rows`)
    await new Promise((r) => setTimeout(r, 50))
  }
  // Calls are graded by the grader, after they are stored.
  await env.grade()
}

/** A real token whose deployer launched more than once, chosen from the raw tables. */
async function realTokenOfRepeatDeployer(): Promise<{ token: string; deployer: string; launches: number }> {
  const [pick] = await queryRows<{ token: string; deployer: string; n: string }>(
    env.rt.ch,
    `WITH per_deployer AS (SELECT c2.deployer AS deployer, count() AS n FROM launches AS l FINAL JOIN contract_creations AS c2 FINAL ON c2.address = l.token GROUP BY c2.deployer)
     SELECT r.token AS token, c.deployer AS deployer, d.n AS n
     FROM token_real AS r FINAL JOIN contract_creations AS c FINAL ON c.address = r.token JOIN per_deployer AS d ON d.deployer = c.deployer
     ORDER BY n DESC, r.token LIMIT 1`,
  )
  expect(pick, 'a real token in the simulated world').toBeDefined()
  return { token: pick!.token, deployer: pick!.deployer, launches: Number(pick!.n) }
}

/** The body parsed by the endpoint's own response schema is the body itself: no field outside it. */
function expectSchema(schema: { parse(v: unknown): unknown }, body: unknown) {
  expect(schema.parse(body)).toEqual(body)
}

describe('GET /report/{token}', () => {
  it('/report/{token} of a real token carries its deployer launch history and agrees with /deployer, /token and /verdict', async () => {
    const pick = await realTokenOfRepeatDeployer()
    expect(pick.launches).toBeGreaterThan(1)
    const res = await get(`/report/${pick.token.toUpperCase().replace('0X', '0x')}`)
    expect(res.status).toBe(200)
    const body = res.json()
    expectSchema(reportEndpoint.response, body)
    expect(body.chain_id).toBe(4663)
    expect(body.measured_through_block).toBe(3000)
    expect(body.data.found).toBe(true)

    const launches = await queryRows<{ token: string }>(
      env.rt.ch,
      'SELECT l.token AS token FROM launches AS l FINAL JOIN contract_creations AS c FINAL ON c.address = l.token WHERE c.deployer = {d:String} ORDER BY l.block_number DESC, l.token',
      { d: pick.deployer },
    )
    const dossier = body.data.deployer
    expect(dossier.deployer).toBe(pick.deployer)
    expect(dossier.launches_total).toBe(launches.length)
    expect(dossier.launches.map((l: { token: string }) => l.token).sort()).toEqual(launches.map((l) => l.token).slice(0, 100).sort())
    expect(dossier.launches.find((l: { token: string }) => l.token === pick.token)).toMatchObject({ is_real: true })

    const deployer = (await get(`/deployer/${pick.deployer}`)).json()
    expect(dossier).toEqual(deployer.data)
    const token = (await get(`/token/${pick.token}`)).json()
    expect(body.data.token).toEqual(token.data)
    expect(body.data.token).toMatchObject({ token: pick.token, is_real: true, deployer: pick.deployer })
    const verdict = (await get(`/verdict/${pick.token}`)).json()
    expectSchema(verdictEndpoint.response, verdict)
    expect({ signal: body.signal, confidence: body.confidence }).toEqual({ signal: verdict.signal, confidence: verdict.confidence })
    expect(body.data.verdict).toEqual({ signal: verdict.signal, confidence: verdict.confidence, reasons: verdict.data.reasons })
    expect(verdict.data.reasons.map((r: { code: string }) => r.code)).toContain('real')
    expect(body.data.forensics.status).toBe('not_scanned')
  })

  it('/report/{token} lists the measured callers who called the token, earliest first, with the true total', async () => {
    const x = await realTokenOfRepeatDeployer()
    const [real] = await queryRows<{ t: string }>(env.rt.ch, 'SELECT toUnixTimestamp(min(real_at)) AS t FROM token_real WHERE token = {x:String}', { x: x.token })
    const realAt = Number(real!.t)
    // Four other traded tokens, each with a swap an hour or more before the chain's end: a call
    // one second before that swap is graded, so an account making these four calls is measured.
    const [end] = await queryRows<{ t: string }>(env.rt.ch, 'SELECT toUnixTimestamp(max(timestamp)) AS t FROM chain_blocks')
    const training = await queryRows<{ token: string; t: string }>(
      env.rt.ch,
      `SELECT token, toUnixTimestamp(min(block_time)) AS t FROM swaps WHERE token != {x:String} AND token_in + token_out > 0 AND toUnixTimestamp(block_time) <= {last:UInt32}
       GROUP BY token ORDER BY count() DESC, token LIMIT 4`,
      { x: x.token, last: Number(end!.t) - 3700 },
    )
    expect(training).toHaveLength(4)
    const measured = Array.from({ length: 55 }, (_, i) => `dossier_m${String(i).padStart(2, '0')}`)
    const unmeasured = ['dossier_u0', 'dossier_u1', 'dossier_u2']
    // The unmeasured accounts call first: a list that let them in would start with them.
    const callAt = new Map<string, number>([...unmeasured, ...measured].map((h, i) => [h, realAt - 250 + i * 7]))
    const posts = [
      ...measured.flatMap((h) => training.map((tr) => post(h, Number(tr.t) - 1, `aping ${tr.token}`))),
      ...[...callAt].map(([h, at]) => post(h, at, `${x.token} looks interesting`)),
    ]
    const before = await count('mentions')
    await publish(TOPICS.socialPosts, posts)
    await settle('mentions', before + posts.length)

    const body = (await get(`/report/${x.token}`)).json()
    expectSchema(reportEndpoint.response, body)
    const callers = body.data.callers
    expect(callers.accounts).toBe(58)
    expect(callers.measured).toBe(55)
    expect(callers.truncated).toBe(true)
    expect(callers.list.map((c: { handle: string }) => c.handle)).toEqual(measured.slice(0, 50))
    for (const c of callers.list) {
      expect(c.measured).toBe(true)
      expect(c.called_at).toBe(new Date(callAt.get(c.handle)! * 1000).toISOString().replace('.000Z', 'Z'))
      expect(c.early).toBe(callAt.get(c.handle)! < realAt)
    }
    expect(callers.list.some((c: { early: boolean }) => c.early)).toBe(true)
    expect(callers.list.some((c: { early: boolean }) => !c.early)).toBe(true)
    for (const c of callers.list.slice(0, 3)) {
      const card = (await get(`/caller/${c.handle}`, {}, '192.0.2.50')).json().data
      expect(card).toMatchObject({ measured: true, grade: c.grade, score: c.score, graded_calls: c.graded_calls, early_rate: c.early_rate })
      expect(card.graded_calls).toBeGreaterThanOrEqual(4)
    }
    // /mentions/{token} counts the same accounts
    expect((await get(`/mentions/${x.token}`)).json().data.voices.accounts).toBe(callers.accounts)
  })

  it('/report/{token} answers found:false for an unknown token', async () => {
    const res = await get(`/report/${UNKNOWN}`)
    expect(res.status).toBe(200)
    const body = res.json()
    expectSchema(reportEndpoint.response, body)
    expect(body).toMatchObject({ signal: 'high_risk', confidence: 0, chain_id: 4663, measured_through_block: 3000 })
    expect(body.data).toMatchObject({
      found: false,
      verdict: { signal: 'high_risk', confidence: 0, reasons: [{ code: 'not_tracked', signal: 'high_risk', measured: { found: false } }] },
      token: { token: UNKNOWN, found: false, swaps: 0, weth_volume_wei: '0' },
      deployer: null,
      callers: { accounts: 0, measured: 0, list: [], truncated: false },
      forensics: { status: 'not_scanned', job: null },
    })
    const verdict = (await get(`/verdict/${UNKNOWN}`)).json()
    expect(verdict).toMatchObject({ signal: 'high_risk', confidence: 0, data: { token: UNKNOWN, found: false, reasons: [{ code: 'not_tracked' }] } })
  })

  it('/report/{token} answers 400 invalid_address for a malformed token', async () => {
    const res = await get('/report/0x1234')
    expect(res.status).toBe(400)
    expect(res.json().error.code).toBe('invalid_address')
  })
})

describe('GET /verdict/{token}', () => {
  it('/verdict/{token} of a rugged token (liquidity pulled) is avoid', async () => {
    // more than 90% of the launch pool's liquidity removed, from the raw liquidity events
    const rugged = await queryRows<{ token: string; added: string; removed: string }>(
      env.rt.ch,
      `SELECT l.token AS token, sumIf(e.liquidity, e.kind = 'mint') AS added, sumIf(e.liquidity, e.kind = 'burn') AS removed
       FROM launches AS l FINAL JOIN liquidity_events AS e FINAL ON e.pool = l.pool
       GROUP BY l.token HAVING added > 0 AND removed * 10 > added * 9 ORDER BY l.token LIMIT 3`,
    )
    expect(rugged.length, 'rugged tokens in the simulated world').toBeGreaterThan(0)
    for (const r of rugged) {
      const res = await get(`/verdict/${r.token}`)
      expect(res.status).toBe(200)
      const body = res.json()
      expect(body.signal).toBe('avoid')
      expect(body.confidence).toBeGreaterThanOrEqual(0.9)
      const reason = body.data.reasons.find((x: { code: string }) => x.code === 'dead_liquidity_removed')
      expect(reason.measured.removed_share).toBeCloseTo(Number((BigInt(r.removed) * 10_000n) / BigInt(r.added)) / 10_000, 4)
      const report = (await get(`/report/${r.token}`)).json()
      expect(report.signal).toBe('avoid')
      expect(report.data.token).toMatchObject({ dead: true, dead_reason: 'liquidity_removed' })
    }
  })

  it('/verdict/{token} of a token with liquidity partly removed (50% to 90%) is at least high_risk', async () => {
    const partly = await queryRows<{ token: string; added: string; removed: string }>(
      env.rt.ch,
      `SELECT l.token AS token, sumIf(e.liquidity, e.kind = 'mint') AS added, sumIf(e.liquidity, e.kind = 'burn') AS removed
       FROM launches AS l FINAL JOIN liquidity_events AS e FINAL ON e.pool = l.pool
       GROUP BY l.token HAVING added > 0 AND removed * 2 > added AND removed * 10 <= added * 9 ORDER BY l.token LIMIT 3`,
    )
    expect(partly.length, 'partly pulled tokens in the simulated world').toBeGreaterThan(0)
    for (const p of partly) {
      const body = (await get(`/verdict/${p.token}`)).json()
      expect(['high_risk', 'avoid']).toContain(body.signal)
      expect(body.data.reasons.map((x: { code: string }) => x.code)).toContain('liquidity_partly_removed')
    }
  })

  it('/verdict/{token} fails closed with 402 and the x402 requirements when no payment is presented', async () => {
    const res = await get(`/verdict/${UNKNOWN}`, {})
    expect(res.status).toBe(402)
    const required = decodePaymentRequiredHeader(String(res.headers['payment-required']))
    expect(required.accepts[0]).toMatchObject({ amount: '20000', network: 'eip155:8453' })
  })
})

describe('the free quota of /report/{token}', () => {
  it('/report/{token} is free 25 times a day per IP, then answers 402 with PAYMENT-REQUIRED', async () => {
    const [t] = await queryRows<{ token: string }>(env.rt.ch, 'SELECT token FROM launches FINAL ORDER BY token LIMIT 1')
    const ip = '203.0.113.7'
    for (let i = 0; i < 25; i++) {
      const res = await get(`/report/${t!.token}`, {}, ip)
      expect(res.status, `call ${i + 1}`).toBe(200)
      expect(res.json().data.found).toBe(true)
    }
    const over = await get(`/report/${t!.token}`, {}, ip)
    expect(over.status).toBe(402)
    expect(over.json().error.code).toBe('payment_required')
    const required = decodePaymentRequiredHeader(String(over.headers['payment-required']))
    expect(required.accepts[0]).toMatchObject({ amount: '50000', network: 'eip155:8453' })
    expect(required.resource.url).toContain(`/report/${t!.token}`)
    // the quota is keyed on the connection's address: a forwarded-for header does not renew it
    expect((await get(`/report/${t!.token}`, { 'x-forwarded-for': '198.51.100.9' }, ip)).status).toBe(402)
    // ...and an exhausted quota is exhausted for every token and for ?tier=free too
    expect((await get(`/report/${UNKNOWN}`, {}, ip)).status).toBe(402)
    expect((await get(`/report/${t!.token}?tier=free`, {}, ip)).status).toBe(402)
    // another address has its own quota; the operator is not counted
    expect((await get(`/report/${t!.token}`, {}, '203.0.113.8')).status).toBe(200)
    expect((await get(`/report/${t!.token}`, admin, ip)).status).toBe(200)
  })

  it('/report/{token}?tier=free serves the free tier from the same daily quota', async () => {
    const ip = '203.0.113.20'
    const first = await get(`/report/${UNKNOWN}?tier=free`, {}, ip)
    expect(first.status).toBe(200)
    expect(first.headers['payment-response']).toBeUndefined()
    expect(first.json().data.found).toBe(false)
    for (let i = 1; i < 25; i++) expect((await get(`/report/${UNKNOWN}?tier=free`, {}, ip)).status, `call ${i + 1}`).toBe(200)
    const over = await get(`/report/${UNKNOWN}?tier=free`, {}, ip)
    expect(over.status).toBe(402)
    expect(over.json().error.code).toBe('payment_required')
    // the same x402 requirements as without a tier, so the client can pay for this call
    expect(decodePaymentRequiredHeader(String(over.headers['payment-required'])).accepts[0]).toMatchObject({ amount: '50000' })
    expect((await get(`/report/${UNKNOWN}`, {}, ip)).status).toBe(402)
    expect((await get(`/report/${UNKNOWN}?tier=paid`, {}, ip)).status).toBe(400)
  })
})

describe('the client address behind a proxy (TRUST_PROXY)', () => {
  it('with TRUST_PROXY naming the proxy, clients behind it have quotas of their own; others cannot pick their address', async () => {
    const app = await buildApp({
      deps: { ...env.api.deps, config: { ...env.rt.config, TRUST_PROXY: '10.9.0.1' } },
      gate: createAccessGate({ adminToken: undefined, store: env.rt.store, keys: env.api.deps.keys }),
      catalog,
    })
    try {
      const call = (remoteAddress: string, forwardedFor: string) =>
        app.inject({ method: 'GET', url: `/report/${UNKNOWN}`, remoteAddress, headers: { 'x-forwarded-for': forwardedFor } }).then((r) => r.statusCode)
      const viaProxy: number[] = []
      for (let i = 0; i < 26; i++) viaProxy.push(await call('10.9.0.1', '198.51.100.31'))
      expect(viaProxy.slice(0, 25).every((s) => s === 200)).toBe(true)
      expect(viaProxy[25]).toBe(402)
      // another client behind the same proxy: its own quota
      expect(await call('10.9.0.1', '198.51.100.32')).toBe(200)
      // a connection from elsewhere claiming the used-up client's address is counted as itself
      const direct: number[] = []
      for (let i = 0; i < 26; i++) direct.push(await call('192.0.2.50', `198.51.100.${40 + i}`))
      expect(direct.slice(0, 25).every((s) => s === 200)).toBe(true)
      expect(direct[25]).toBe(402)
    } finally {
      await app.close()
    }
  })
})
