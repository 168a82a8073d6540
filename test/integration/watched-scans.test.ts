import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { structureReport } from '../../products/structure/structure-report.ts'
import { foldBlocks } from '../../products/wallet/fifo-refresh.ts'
import { rollbackChain } from '../../pipelines/process/chain-rollback.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { latestStructureScans } from '../../products/verdict/verdict-signals.ts'
import { address, createConstructedChain, ZERO, type Transfer } from '../setup/constructed-chain.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'
import { until } from '../setup/until.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../setup/webhook-receiver.ts'

/**
 * The daily structure scan of watched tokens, on a constructed chain of one block an hour:
 * day 1 the largest holder buys (accumulation), day 2 the insiders sell into the pool
 * (distribution). Each daily scan archives a snapshot; the flip alerts the watching keys only.
 */
let env: Embedded
let receiver: WebhookReceiver
/** The constructed world, shared by the tests (they run in order). */
const world = {
  token: address(0x71),
  deployer: address(0xd1),
  pool: address(0x91),
  weth: address(0xe1),
  holders: Array.from({ length: 12 }, () => address(0xb0)),
  /** Linked to the first holder by a direct transfer on day 2. */
  friend: address(0xc0),
  transfers: [] as Transfer[],
  keys: { a: '', other: '' },
}
beforeAll(async () => {
  receiver = await startWebhookReceiver()
  env = await startEmbedded(
    { STRUCTURE_DAILY_SCAN_SECONDS: '86400', STRUCTURE_DAILY_CHECK_MS: '0' },
    { alerts: { allowLoopback: true, ca: receiver.cert, backoffMs: 100, producerIntervalMs: 3_600_000 } },
  )
})
afterAll(async () => {
  await env?.close()
  await receiver?.close()
})

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, key?: string, payload?: object) {
  const headers: Record<string, string> = key ? { 'x-svc-key': key } : {}
  if (payload) headers['content-type'] = 'application/json'
  return env.api.app.inject({ method, url, headers, payload: payload ? JSON.stringify(payload) : undefined })
}
async function issue(plan: string): Promise<string> {
  const res = await env.api.app.inject({
    method: 'POST', url: '/admin/keys', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: JSON.stringify({ plan }),
  })
  return res.json().key
}

const E18 = 10n ** 18n
const chain = () => createConstructedChain(env.rt.ch, { blockSeconds: 3600 })

async function dailyJobDone(token: string, after: string | null): Promise<string> {
  return until('the daily structure job', async () => {
    const job = await env.api.deps.scans.latest('structure', token)
    return job && job.id !== after && job.state === 'done' ? job.id : job?.state === 'failed' ? Promise.reject(new Error(job.reason!)) : undefined
  })
}

describe('daily structure scans of watched tokens', () => {
  it('a watched token is scanned once a chain day; history answers the snapshots; a verdict flip alerts the watching keys only', async () => {
    const c = chain()
    const { token, deployer, pool, weth, holders, friend } = world
    const record = async (list: Transfer[]) => {
      world.transfers.push(...list)
      await c.transfers(token, list)
    }
    const supply = 1_000_000n * E18

    // Launch: supply to the deployer, 50,000 to each of 12 wallets off-market, 300,000 to the pool; the first swap at block 4.
    await c.blocks(1, 30)
    await c.creation(token, deployer, 1)
    await record([
      { block: 1, from: ZERO, to: deployer, value: supply },
      ...holders.map((h) => ({ block: 2, from: deployer, to: h, value: 50_000n * E18 })),
      { block: 3, from: deployer, to: pool, value: 300_000n * E18 },
      { block: 4, from: pool, to: holders[11]!, value: 1_000n * E18 },
      // Day 1: the largest holders grow (a buy of 100,000).
      { block: 20, from: pool, to: holders[0]!, value: 100_000n * E18 },
    ])
    await c.pool(pool, token, weth, 3)
    await c.swap(pool, token, holders[11]!, 4, { tokenOut: 1_000n * E18, wethIn: E18 })

    const [a, b, other, founders] = [await issue('signal_feed'), await issue('signal_feed'), await issue('signal_feed'), await issue('founders')]
    Object.assign(world, { keys: { a, other } })
    for (const [key, path] of [[a, '/a'], [b, '/b'], [other, '/other']] as const) {
      expect((await call('POST', '/alerts/webhook', key, { url: `${receiver.base}${path}` })).statusCode).toBe(200)
    }
    expect((await call('POST', `/watchlist/${token}`, a)).statusCode).toBe(200)
    expect((await call('POST', `/watchlist/${token}`, b)).statusCode).toBe(200)

    // Day 1: due (no snapshot yet), scanned, archived.
    expect(await env.scans.daily.runOnce()).toEqual([token])
    const first = await dailyJobDone(token, null)
    expect(await env.scans.daily.runOnce()).toEqual([])

    // Day 2 (30 more hours): five insiders sell 30,000 each into the pool.
    await c.blocks(31, 60)
    await record([...holders.slice(0, 5).map((h) => ({ block: 50, from: h, to: pool, value: 30_000n * E18 })), { block: 51, from: holders[0]!, to: friend, value: 1_000n * E18 }])
    expect(await env.scans.daily.runOnce()).toEqual([token])
    await dailyJobDone(token, first)

    // History, newest first, equals the structure answers at both window ends.
    const history = await call('GET', `/structure/${token}/history`, a)
    expect(history.statusCode).toBe(200)
    const { data } = history.json()
    expect(data.watched).toBe(true)
    expect(data.snapshots.map((s: { measured_through_block: number }) => s.measured_through_block)).toEqual([60, 30])
    for (const s of data.snapshots) {
      const expected = await structureReport(env.rt.ch, 4663, token, s.measured_through_block)
      expect(s).toMatchObject({
        trigger: 'daily',
        verdict: expected.signal,
        holder_count: expected.data.holders.count,
        diff_summary: expected.data.diff.summary,
        window: { from_block: expected.data.window.from_block, to_block: expected.data.window.to_block },
      })
      expect(s.top_holders).toEqual(expected.data.holders.top)
    }
    expect(data.snapshots.map((s: { verdict: string }) => s.verdict)).toEqual(['distribution', 'accumulation'])

    // The flip reached the two watching keys' webhooks, and no other.
    for (const path of ['/a', '/b']) await until(`the flip at ${path}`, () => (receiver.to(path).length ? true : undefined))
    for (const path of ['/a', '/b']) {
      const alerts = receiver.to(path).map((r) => JSON.parse(r.body))
      expect(alerts).toHaveLength(1)
      expect(alerts[0]).toMatchObject({ kind: 'structure_flip', data: { token, verdict: 'distribution', previous_verdict: 'accumulation', measured_through_block: 60, previous_block: 30 } })
    }
    // Deliveries are recorded before they are attempted: the other key has none for this alert.
    const otherDeliveries = (await call('GET', '/alerts/webhook', other)).json().data.deliveries
    expect(otherDeliveries.filter((d: { kind: string }) => d.kind === 'structure_flip')).toEqual([])
    expect(receiver.to('/other')).toEqual([])

    // The history needs a key whose plan has it.
    expect((await call('GET', `/structure/${token}/history`)).statusCode).toBe(401)
    expect((await call('GET', `/structure/${token}/history`, founders)).statusCode).toBe(403)
    // A key that does not watch the token still reads the archive; paging by before_block.
    const page = (await call('GET', `/structure/${token}/history?limit=1&before_block=60`, other)).json().data
    expect(page).toMatchObject({ watched: false, next_before_block: null })
    expect(page.snapshots.map((s: { measured_through_block: number }) => s.measured_through_block)).toEqual([30])
  })
})

/** Balance of `wallet` through `block`, replayed from the constructed transfers. */
const balanceAt = (wallet: string, block: number) =>
  world.transfers.filter((t) => t.block <= block).reduce((s, t) => s + (t.to === wallet ? t.value : 0n) - (t.from === wallet ? t.value : 0n), 0n)

describe("the verdict's structure signals", () => {
  it("are the token's latest structure scan: its verdict and how many of its top holders are smart; null for a token never scanned", async () => {
    const { token } = world
    const newest = await queryRows<{ verdict: string; smart: string }>(
      env.rt.ch,
      `SELECT verdict, toString(arrayCount(h -> position(h.labels, '"smart"') > 0, top_holders)) AS smart
       FROM structure_snapshots WHERE token = {token:String} ORDER BY to_block DESC LIMIT 1`,
      { token },
    )
    expect(newest).toHaveLength(1)
    const scans = await latestStructureScans(env.rt.ch, 4663, [token, address(0xdd)])
    expect(scans.get(token)).toEqual({ verdict: newest[0]!.verdict, smart: Number(newest[0]!.smart) })
    expect(scans.has(address(0xdd))).toBe(false)
  })
})

describe('GET /entity/{address}', () => {
  it("answers the wallet's entity and every appearance of its wallets in the archive, with balances then and now; found:false for an unknown wallet", async () => {
    const { token, deployer, holders, friend } = world
    env.api.watermarks.advance(4663, 60, Date.now() * 1000)
    const get = (a: string) => env.api.app.inject({ method: 'GET', url: `/entity/${a}`, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })
    const res = await get(friend)
    expect(res.statusCode).toBe(200)
    const { data, measured_through_block } = res.json()
    expect(measured_through_block).toBe(60)
    const members = [holders[0]!, friend].sort()
    expect(data).toMatchObject({ address: friend, found: true, entity: { entity_id: members[0], wallets: members, truncated: false } })
    expect(data.wallets.map((w: { address: string }) => w.address)).toEqual(members)
    const expected = [
      { wallet: friend, blocks: [60] },
      { wallet: holders[0]!, blocks: [60, 30] },
    ]
    for (const e of expected) {
      const a = data.appearances.find((x: { wallet: string; token: string }) => x.wallet === e.wallet && x.token === token)
      expect(a, e.wallet).toBeDefined()
      expect(a.snapshots.map((s: { measured_through_block: number; balance_wei: string }) => [s.measured_through_block, s.balance_wei])).toEqual(
        e.blocks.map((b) => [b, balanceAt(e.wallet, b).toString()]),
      )
      expect(a.balance_now_wei).toBe(balanceAt(e.wallet, 60).toString())
      expect(a.deployer).toBe(false)
    }
    const holder = data.appearances.find((x: { wallet: string }) => x.wallet === holders[0])
    expect(holder.insider).toEqual({ kind: 'insider', from: deployer, received_wei: (50_000n * E18).toString(), block: 2 })
    expect(data.appearances.find((x: { wallet: string }) => x.wallet === friend).insider).toBeNull()

    const unknown = (await get(address(0xcc))).json().data
    expect(unknown).toMatchObject({ found: false, entity: null, appearances: [] })
    expect((await env.api.app.inject({ method: 'GET', url: `/entity/${friend}` })).statusCode).toBe(402)
  })
})

describe('GET /structure/{token}/smart-holders', () => {
  it('is free with a key watching the token, and paid otherwise (a key that does not watch it, or no key); lists the holders with a good FIFO record, with that record', async () => {
    const { token, keys, holders } = world
    // Two holders trade another token: one wins 5 of 5 sells, the other 2 of 5 (positive, but a win rate under 0.5).
    const c = chain()
    const [other, otherPool] = [address(0x72), address(0x92)]
    const trades: Array<{ who: string; buy: bigint; sell: bigint }> = [
      ...Array.from({ length: 5 }, () => ({ who: holders[2]!, buy: 100n, sell: 150n })),
      ...[300n, 300n, 90n, 90n, 90n].map((sell) => ({ who: holders[3]!, buy: 100n, sell })),
    ]
    let block = 61
    for (const t of trades) {
      await c.swap(otherPool, other, t.who, block++, { tokenOut: 10n, wethIn: t.buy })
      await c.swap(otherPool, other, t.who, block++, { tokenIn: 10n, wethOut: t.sell })
    }
    await foldBlocks(env.rt.ch, 4663, 61, block)
    env.api.watermarks.advance(4663, 60, Date.now() * 1000 + 1)
    const get = (key?: string) => call('GET', `/structure/${token}/smart-holders`, key)
    const free = await get(keys.a)
    expect(free.statusCode).toBe(200)
    const expected = await structureReport(env.rt.ch, 4663, token, 60)
    expect(free.json()).toMatchObject({ measured_through_block: 60, data: { token, holders: expected.data.holders.count, judged: expected.data.holders.count } })
    const realized = (w: string) => trades.filter((t) => t.who === w).reduce((s, t) => s + t.sell - t.buy, 0n)
    expect(realized(holders[3]!)).toBeGreaterThan(0n)
    expect(free.json().data.smart_holders).toEqual([
      {
        address: holders[2], balance_wei: balanceAt(holders[2]!, 60).toString(), share: expected.data.holders.top.find((h) => h.address === holders[2])!.share,
        basis: 'fifo_realized', record: { realized_weth_wei: realized(holders[2]!).toString(), sells: 5, winning_sells: 5, win_rate: 1, tokens_traded: 1 },
      },
    ])
    for (const key of [keys.other, undefined]) {
      const paid = await get(key)
      expect(paid.statusCode).toBe(402)
      expect(paid.json().error.code).toBe('payment_required')
    }
  })
})

describe('a reorg', () => {
  it('deletes the snapshots measured through orphaned blocks, and leaves transfers_by_wallet equal to a recount of the surviving transfers', async () => {
    const { token } = world
    const ch = env.rt.ch
    await rollbackChain(ch, 4663, 45, { old: '0xold', new: '0xnew' })
    const blocks = async (table: string, where: string) =>
      (await queryRows<{ b: string }>(ch, `SELECT DISTINCT to_block AS b FROM ${table} WHERE ${where} ORDER BY b`, { t: token })).map((r) => Number(r.b))
    expect(await blocks('structure_snapshots', 'token = {t:String}')).toEqual([30])
    expect(await blocks('snapshot_holdings', 'token = {t:String}')).toEqual([30])
    const sides = `SELECT wallet, token, block_number, log_index, direction, counterparty, toString(value) AS v FROM transfers_by_wallet ORDER BY ALL`
    const recount = `SELECT side.1 AS wallet, token, block_number, log_index, side.2 AS direction, side.3 AS counterparty, toString(value) AS v
      FROM (SELECT * FROM erc20_transfers FINAL) ARRAY JOIN [(to_address, 'in', from_address), (from_address, 'out', to_address)] AS side
      WHERE side.1 != '0x0000000000000000000000000000000000000000' ORDER BY ALL`
    const kept = await queryRows(ch, sides)
    expect(kept.length).toBeGreaterThan(0)
    expect(kept).toEqual(await queryRows(ch, recount))
    expect((await queryRows<{ n: string }>(ch, 'SELECT count() AS n FROM transfers_by_wallet WHERE block_number >= 45'))[0]!.n).toBe('0')
  })
})

describe('a daily scan that fails', () => {
  it('ends failed with its reason, and is queued again only a period of chain time later', async () => {
    const unknown = address(0x7f)
    expect((await call('POST', `/watchlist/${unknown}`, world.keys.a)).statusCode).toBe(200)
    expect(await env.scans.daily.runOnce()).toEqual([unknown])
    const job = await until('the failed daily job', async () => {
      const j = await env.api.deps.scans.latest('structure', unknown)
      return j?.state === 'failed' ? j : undefined
    })
    expect(job).toMatchObject({ trigger: 'daily', reason: expect.stringMatching(/no creation, transfer or pool of 0x7f/) })
    expect(await env.scans.daily.runOnce()).toEqual([])
    // A chain day later it is tried again.
    await chain().blocks(45, 45 + 24)
    expect(await env.scans.daily.runOnce()).toContain(unknown)
  })
})
