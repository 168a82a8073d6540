import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { structureReport } from '../../products/structure/structure-report.ts'
import { walletLinksOf } from '../../products/structure/holder-balances.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'
import { until } from '../setup/until.ts'
import { SIM_4663_CONTRACTS } from '../../pipelines/sim/contracts.ts'

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

/**
 * The simulated tokens most active lately, then with the most transfers: the next batches move
 * them too (wrapped ether, the quote side of every pool and once the pick, is refused).
 */
/** `ch` with `before` run (and awaited) ahead of each query it sends: counts or holds the API's reads. */
function beforeQueries(ch: ClickHouseClient, before: (sql: string, params: Record<string, unknown>) => unknown): ClickHouseClient {
  return new Proxy(ch, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver)
      return async (args: Parameters<ClickHouseClient['query']>[0]) => {
        await before(args.query, args.query_params ?? {})
        return target.query(args)
      }
    },
  })
}

async function busyTokens(n: number): Promise<string[]> {
  const rows = await queryRows<{ token: string }>(
    env.rt.ch,
    `SELECT token FROM erc20_transfers WHERE token != {weth:String} GROUP BY token
     ORDER BY countIf(block_number > (SELECT max(block_number) FROM erc20_transfers) - 50) DESC, count() DESC, token LIMIT {n:UInt32}`,
    { n, weth: SIM_4663_CONTRACTS.weth },
  )
  return rows.map((r) => r.token)
}

/** Transfers of `token` after block `from`. */
async function movedSince(token: string, from: number): Promise<number> {
  const [r] = await queryRows<{ n: string }>(env.rt.ch, 'SELECT count() AS n FROM erc20_transfers WHERE token = {t:String} AND block_number > {b:UInt64}', { t: token, b: from })
  return Number(r!.n)
}

/**
 * Ingest 50 blocks at a time past `from` until one of `candidates` has a transfer there: the
 * simulated tokens trade in bursts, so which one the next batches move is found, not assumed.
 */
async function ingestUntilOneMoves(candidates: string[], from: number): Promise<string> {
  for (let to = from + 50; to <= from + 400; to += 50) {
    await env.ingestThrough(to)
    for (const t of candidates) if ((await movedSince(t, from)) > 0) return t
  }
  throw new Error(`none of ${candidates.length} tokens moved in 400 blocks after ${from}`)
}

describe('GET /structure/{token}', () => {
  it('refuses the chain\'s wrapped ether (its Transfer logs leave balances below zero) before reading anything, and queues no scan of it', async () => {
    const weth = SIM_4663_CONTRACTS.weth
    // What it would answer: balances replayed from its Transfer logs go below zero.
    const replayed = await recount(env.rt.ch, weth, env.api.watermarks.get(4663)!)
    expect([...replayed.values()].some((b) => b < 0n)).toBe(true)
    // Any case of its address is the same address.
    const shouted = `0x${weth.slice(2).toUpperCase()}`
    for (const url of [`/structure/${weth}`, `/structure/${shouted}`, `/structure/${weth}/smart-holders`]) {
      const res = await get(url)
      expect(res.status, JSON.stringify(res.json())).toBe(400)
      expect(res.json().error, url).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'token', in: 'path' } })
    }
    const scan = await env.api.app.inject({ method: 'POST', url: `/structure/${weth}`, headers: admin })
    expect(scan.statusCode).toBe(400)
    const [queued] = await queryRows<{ n: string }>(env.rt.ch, `SELECT count() AS n FROM scan_jobs WHERE token = {t:String}`, { t: weth })
    expect(Number(queued!.n)).toBe(0)
    // Nor is it watched (a watched token gets a daily structure scan).
    const issued = await env.api.app.inject({ method: 'POST', url: '/admin/keys', headers: { ...admin, 'content-type': 'application/json' }, payload: { plan: 'signal_feed' } })
    const watch = await env.api.app.inject({ method: 'POST', url: `/watchlist/${weth}`, headers: { 'x-svc-key': issued.json().key } })
    expect(watch.statusCode, watch.body).toBe(400)
    expect(watch.json().error.code).toBe('invalid_parameter')
    // A token traded against it is answered.
    const [token] = await busyTokens(1)
    expect((await get(`/structure/${token}`)).status).toBe(200)
  })

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

    const candidates = await busyTokens(12)
    let reads = 0
    const ch = env.api.deps.ch
    const counting = beforeQueries(ch, (sql) => {
      if (sql.includes('holder_balances')) reads++
    })
    env.api.deps.ch = counting
    try {
      const first = new Map<string, unknown>()
      for (const t of candidates) first.set(t, (await get(`/structure/${t}`)).json())
      const before = reads
      for (const t of candidates) expect((await get(`/structure/${t}`)).json()).toEqual(first.get(t))
      expect(reads).toBe(before) // served from the cache
      const served = env.api.watermarks.get(4663)!
      const token = await ingestUntilOneMoves(candidates, served)
      // Right after the change the answer before it may be given (stating its block) while the
      // new one is computed; the new one follows.
      let c = await get(`/structure/${token}`)
      expect(c.json().measured_through_block).toBeGreaterThanOrEqual(served)
      expect(c.json().measured_through_block).toBeLessThanOrEqual(env.api.watermarks.get(4663)!)
      for (let i = 0; i < 100 && c.json().measured_through_block !== env.api.watermarks.get(4663); i++) {
        await new Promise((r) => setTimeout(r, 100))
        c = await get(`/structure/${token}`)
      }
      expect(c.json().measured_through_block).toBe(env.api.watermarks.get(4663))
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
    env.api.deps.ch = beforeQueries(ch, (sql) => (sql.includes('holder_balances') ? held : undefined))
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

  it('an answer whose token moved again while it was computed is given as the previous one, stating its block', { timeout: 120_000 }, async () => {
    const [token] = await busyTokens(1)
    const before = (await get(`/structure/${token}`)).json()
    // A computation's holder window (its first holder read) waits for the gate of the moment it is sent.
    const gates: Array<() => void> = []
    let gate: Promise<void> = Promise.resolve()
    const hold = () => (gate = new Promise<void>((r) => gates.push(r)))
    const ch = env.api.deps.ch
    let waiting = 0 // holder windows sent so far, each held at the gate of its moment
    env.api.deps.ch = beforeQueries(ch, (sql) => {
      if (!sql.includes('first_change')) return undefined
      waiting++
      return gate
    })
    const movedSince = async (b: number) =>
      Number((await queryRows<{ n: string }>(env.rt.ch, 'SELECT count() AS n FROM erc20_transfers WHERE token = {t:String} AND block_number > {b:UInt64}', { t: token, b }))[0]!.n)
    try {
      hold()
      await env.ingestThrough(before.measured_through_block + 50)
      await env.api.deps.tokens.sync()
      const first = env.api.deps.tokens.measuredThrough()!
      expect(await movedSince(before.measured_through_block)).toBeGreaterThan(0)
      // Given as before; its computation at `first` starts and waits at the first gate.
      expect((await get(`/structure/${token}`)).json()).toEqual(before)
      await until('the computation at the first block held at the first gate', () => (waiting > 0 ? true : undefined))
      hold()
      await env.ingestThrough(first + 50)
      await env.api.deps.tokens.sync()
      expect(await movedSince(first)).toBeGreaterThan(0)
      // The token moved again: the computation at `first` finishes, is not kept, and is given
      // while the one at the new block waits at the second gate.
      gates[0]!()
      // Until it has finished (however long a busy machine takes), the answer before it is
      // given; never the one at the new block, held at its gate.
      const meanwhile = await until('the computation at the first block given', async () => {
        const body = (await get(`/structure/${token}`)).json()
        expect([before.measured_through_block, first]).toContain(body.measured_through_block)
        return body.measured_through_block === first ? body : undefined
      })
      expect(meanwhile.data.token).toBe(token)
    } finally {
      for (const open of gates) open()
      env.api.deps.ch = ch
    }
    const served = env.api.deps.tokens.measuredThrough()!
    await until('the new answer kept', async () => ((await get(`/structure/${token}`)).json().measured_through_block === served ? true : undefined))
  })

  it('first asks of several tokens at once are computed together, each equal to its own computation', { timeout: 120_000 }, async () => {
    // Tokens no test asked before: the quietest ones.
    const quiet = (await queryRows<{ token: string }>(
      env.rt.ch,
      'SELECT token FROM erc20_transfers WHERE token != {weth:String} GROUP BY token ORDER BY count(), token LIMIT 8',
      { weth: SIM_4663_CONTRACTS.weth },
    )).map((r) => r.token)
    let windows = 0
    const ch = env.api.deps.ch
    // Only the windows of these tokens: a computation another test left running is not theirs.
    env.api.deps.ch = beforeQueries(ch, (sql, params) => {
      const tokens = (params.tokens ?? []) as string[]
      if (sql.includes('first_change') && tokens.some((t) => quiet.includes(t))) windows++
    })
    try {
      const answers = await Promise.all(quiet.map((t) => get(`/structure/${t}`)))
      // The first starts at once, the others wait for it and go together.
      expect(windows).toBeGreaterThanOrEqual(1)
      expect(windows).toBeLessThanOrEqual(2)
      for (const [i, res] of answers.entries()) {
        expect(res.status).toBe(200)
        const body = res.json()
        expect(body.data).toEqual((await structureReport(env.rt.ch, 4663, quiet[i]!, body.measured_through_block)).data)
      }
    } finally {
      env.api.deps.ch = ch
    }
  })

  it('the entity walk\'s links of many tokens read at once are each token\'s own, as read token by token', { timeout: 60_000 }, async () => {
    // The busiest tokens share many wallets: each asks for its own holders, so the flat wallet
    // list sent for them all names, for every token, wallets another token asked for.
    const tokens = await busyTokens(8)
    const block = env.processor.watermark()
    const holders = await queryRows<{ token: string; wallet: string }>(
      env.rt.ch,
      'SELECT token, wallet FROM holder_balances WHERE chain_id = 4663 AND token IN {t:Array(String)} GROUP BY token, wallet HAVING sum(balance) > 0 ORDER BY token, wallet',
      { t: tokens },
    )
    // Every other holder of each token: what another token asks for is, for many, left out here.
    const asks = new Map(tokens.map((t) => [t, { wallets: holders.filter((h) => h.token === t).map((h) => h.wallet).filter((_, i) => i % 2 === 0), exclude: [] as string[] }]))
    const own = async (token: string, wallets: string[]) =>
      queryRows<{ token: string; wallet: string; peer: string }>(
        env.rt.ch,
        `SELECT token, wallet, peer FROM token_wallet_links WHERE chain_id = 4663 AND token = {t:String} AND wallet IN {w:Array(String)}
         GROUP BY token, wallet, peer HAVING min(first_block) <= {to:UInt64}`,
        { t: token, w: wallets, to: block },
      )
    const expected = (await Promise.all(tokens.map((t) => own(t, asks.get(t)!.wallets)))).flat()
    const key = (r: { token: string; wallet: string; peer: string }) => `${r.token} ${r.wallet} ${r.peer}`
    const together = await walletLinksOf(env.rt.ch, 4663, asks, block)
    expect(together.map(key).sort()).toEqual(expected.map(key).sort())
    expect(expected.length).toBeGreaterThan(20)
    // The read did see links of wallets asked for another token only: they were dropped.
    const everyAsked = [...new Set([...asks.values()].flatMap((a) => a.wallets))]
    const unfiltered = (await Promise.all(tokens.map((t) => own(t, everyAsked)))).flat()
    expect(unfiltered.length).toBeGreaterThan(expected.length)
  })

  it('an answer asked recently is computed again in the background when a batch drops it', { timeout: 120_000 }, async () => {
    const candidates = await busyTokens(12)
    for (const t of candidates) expect((await get(`/structure/${t}`)).status).toBe(200)
    let reads = 0
    const ch = env.api.deps.ch
    env.api.deps.ch = beforeQueries(ch, (sql) => {
      if (sql.includes('holder_balances')) reads++
    })
    try {
      const token = await ingestUntilOneMoves(candidates, env.api.watermarks.get(4663)!)
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
