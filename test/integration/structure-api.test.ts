import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { structureReport } from '../../products/structure/structure-report.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'

/**
 * GET /structure/{token} over the simulated chain: the answer is structureReport's, balances
 * equal a recount over the raw erc20_transfers, as_of_block is checked, and answers are cached
 * per served batch.
 */
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
let env: Embedded

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '100' })
  await env.ingestThrough(400)
}, 180_000)
afterAll(async () => env?.close())

async function get(url: string) {
  const res = await env.api.app.inject({ method: 'GET', url, headers: admin })
  return { status: res.statusCode, json: () => res.json() }
}

/** Balances of a token at a block, recounted over the raw transfers (pools included, zero address left out). */
async function recount(ch: ClickHouseClient, token: string, block: number): Promise<Map<string, bigint>> {
  const rows = await queryRows<{ w: string; b: string }>(
    ch,
    `SELECT w, toString(sum(d)) AS b FROM
     (SELECT to_address AS w, toInt256(value) AS d FROM erc20_transfers FINAL WHERE token = {t:String} AND block_number <= {b:UInt64}
      UNION ALL SELECT from_address AS w, -toInt256(value) AS d FROM erc20_transfers FINAL WHERE token = {t:String} AND block_number <= {b:UInt64})
     WHERE w != '0x0000000000000000000000000000000000000000' GROUP BY w HAVING sum(d) != 0`,
    { t: token, b: block },
  )
  return new Map(rows.map((r) => [r.w, BigInt(r.b)]))
}

/** The simulated tokens with the most transfers. */
async function busyTokens(n: number): Promise<string[]> {
  const rows = await queryRows<{ token: string }>(env.rt.ch, `SELECT token FROM erc20_transfers GROUP BY token ORDER BY count() DESC, token LIMIT {n:UInt32}`, { n })
  return rows.map((r) => r.token)
}

describe('GET /structure/{token}', () => {
  it('answers holders, pools and the diff equal to a recount of the raw transfers at both ends', async () => {
    const served = env.api.watermarks.get(4663)!
    for (const token of await busyTokens(4)) {
      const res = await get(`/structure/${token}`)
      expect(res.status).toBe(200)
      const body = res.json()
      expect(body.measured_through_block).toBe(served)
      expect(body.data.window.to_block).toBe(served)
      // The simulated chain has less than 24 h of history: no baseline, the window starts at the first block.
      expect(body.signal).toBe('insufficient_data')
      const now = await recount(env.rt.ch, token, served)
      const then = await recount(env.rt.ch, token, body.data.window.from_block)
      const pools = new Set<string>(body.data.pools.map((p: { address: string }) => p.address))
      for (const p of body.data.pools) expect(p.balance_wei).toBe((now.get(p.address) ?? 0n).toString())
      const holders = [...now].filter(([w, b]) => !pools.has(w) && b > 0n)
      expect(body.data.holders.count).toBe(holders.length)
      for (const h of body.data.holders.top) expect(h.balance_wei).toBe(now.get(h.address)!.toString())
      const wallets = new Set([...now.keys(), ...then.keys()].filter((w) => !pools.has(w)))
      expect(body.data.diff.total).toBe(wallets.size)
      for (const x of body.data.diff.wallets) {
        expect([x.balance_then_wei, x.balance_now_wei]).toEqual([(then.get(x.address) ?? 0n).toString(), (now.get(x.address) ?? 0n).toString()])
      }
      expect(body.data).toEqual((await structureReport(env.rt.ch, 4663, token, served)).data)
    }
  })

  it('as_of_block ends the window earlier; malformed or beyond the served block is a 400 naming it', async () => {
    const [token] = await busyTokens(1)
    const res = await get(`/structure/${token}?as_of_block=250`)
    expect(res.status).toBe(200)
    expect(res.json().data.window.to_block).toBe(250)
    const now = await recount(env.rt.ch, token!, 250)
    for (const h of res.json().data.holders.top) expect(h.balance_wei).toBe(now.get(h.address)!.toString())
    for (const bad of ['abc', '-1', '1.5', '0', String(env.api.watermarks.get(4663)! + 1)]) {
      const r = await get(`/structure/${token}?as_of_block=${bad}`)
      expect(r.status).toBe(400)
      expect(r.json().error.details.parameter).toBe('as_of_block')
    }
  })

  it('OpenAPI documents as_of_block, the verdict rules with their thresholds and the answer schema', async () => {
    const doc = (await get('/openapi.json')).json()
    const op = doc.paths['/structure/{token}'].get
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['as_of_block', 'token'])
    expect(op['x-price-usd']).toBe('0.03')
    for (const rule of ['insufficient_data: fewer than 10 holders', 'distribution:', 'accumulation:', 'rotation:', '1% of supply']) expect(op.description).toContain(rule)
    expect(JSON.stringify(op.responses['200'])).toContain('balance_then_wei')
  })

  it('an unknown token is found:false; answers are kept until a batch changes their token', async () => {
    const unknown = await get(`/structure/0x${'ab'.repeat(20)}`)
    expect(unknown.status).toBe(200)
    expect(unknown.json().data.found).toBe(false)
    expect(unknown.json().data.holders.count).toBe(0)

    const [token] = await busyTokens(1)
    let reads = 0
    const ch = env.api.deps.ch
    const counting = new Proxy(ch, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver)
        return (args: Parameters<ClickHouseClient['query']>[0]) => {
          if (args.query.includes('holder_balances')) reads++
          return target.query(args)
        }
      },
    })
    env.api.deps.ch = counting
    try {
      const a = await get(`/structure/${token}`)
      const before = reads
      const b = await get(`/structure/${token}`)
      expect(b.json()).toEqual(a.json())
      expect(reads).toBe(before) // served from the cache
      const served = env.api.watermarks.get(4663)!
      await env.ingestThrough(450)
      // Right after the change the answer before it may be given (stating its block) while the
      // new one is computed; the new one follows.
      let c = await get(`/structure/${token}`)
      expect([served, env.api.watermarks.get(4663)]).toContain(c.json().measured_through_block)
      for (let i = 0; i < 100 && c.json().measured_through_block !== env.api.watermarks.get(4663); i++) {
        await new Promise((r) => setTimeout(r, 100))
        c = await get(`/structure/${token}`)
      }
      expect(c.json().measured_through_block).toBe(env.api.watermarks.get(4663))
      const [moved] = await queryRows<{ n: string }>(env.rt.ch, 'SELECT count() AS n FROM erc20_transfers WHERE token = {t:String} AND block_number > {b:UInt64}', { t: token, b: served })
      expect(Number(moved!.n)).toBeGreaterThan(0)
      expect(reads).toBeGreaterThan(before) // its token moved in the new batches: computed again
    } finally {
      env.api.deps.ch = ch
    }
  })

  it('while a change is computed, the answer before it is given at once, stating its block; as_of_block waits for the new one', { timeout: 120_000 }, async () => {
    const [token] = await busyTokens(1)
    const before = (await get(`/structure/${token}`)).json()
    // Hold every holder read until released: the new answer cannot be computed meanwhile.
    let release = () => {}
    const held = new Promise<void>((r) => (release = r))
    const ch = env.api.deps.ch
    env.api.deps.ch = new Proxy(ch, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver)
        return async (args: Parameters<ClickHouseClient['query']>[0]) => {
          if (args.query.includes('holder_balances')) await held
          return target.query(args)
        }
      },
    })
    try {
      await env.ingestThrough(before.measured_through_block + 50)
      await env.api.deps.tokens.sync()
      const served = env.api.deps.tokens.measuredThrough()!
      const [moved] = await queryRows<{ n: string }>(env.rt.ch, 'SELECT count() AS n FROM erc20_transfers WHERE token = {t:String} AND block_number > {b:UInt64}', { t: token, b: before.measured_through_block })
      expect(Number(moved!.n)).toBeGreaterThan(0)
      const quick = await get(`/structure/${token}`)
      expect(quick.status).toBe(200)
      expect(quick.json()).toEqual(before) // the answer before the change, as it was given
      const exact = env.api.app.inject({ method: 'GET', url: `/structure/${token}?as_of_block=${served}`, headers: admin })
      release()
      const res = await exact
      expect(res.statusCode).toBe(200)
      expect(res.json().measured_through_block).toBe(served)
      expect(res.json().data.holders).toEqual((await get(`/structure/${token}`)).json().data.holders)
    } finally {
      release()
      env.api.deps.ch = ch
    }
  })

  it('an answer asked recently is computed again in the background when a batch drops it', { timeout: 120_000 }, async () => {
    const [token] = await busyTokens(1)
    expect((await get(`/structure/${token}`)).status).toBe(200)
    let reads = 0
    const ch = env.api.deps.ch
    env.api.deps.ch = new Proxy(ch, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver)
        return (args: Parameters<ClickHouseClient['query']>[0]) => {
          if (args.query.includes('holder_balances')) reads++
          return target.query(args)
        }
      },
    })
    try {
      const served = env.api.watermarks.get(4663)!
      await env.ingestThrough(served + 50)
      const [moved] = await queryRows<{ n: string }>(env.rt.ch, 'SELECT count() AS n FROM erc20_transfers WHERE token = {t:String} AND block_number > {b:UInt64}', { t: token, b: served })
      expect(Number(moved!.n)).toBeGreaterThan(0)
      await env.api.deps.tokens.sync()
      // No request: the refresh reads the token's balances on its own, then goes quiet.
      const deadline = Date.now() + 30_000
      let last = -1
      while (Date.now() < deadline && (reads === 0 || reads !== last)) {
        last = reads
        await new Promise((r) => setTimeout(r, 500))
      }
      expect(reads).toBeGreaterThan(0)
      const computed = reads
      const res = await get(`/structure/${token}`)
      expect(res.json().measured_through_block).toBe(env.api.watermarks.get(4663))
      expect(reads).toBe(computed) // the request found the answer kept
    } finally {
      env.api.deps.ch = ch
    }
  })
})
