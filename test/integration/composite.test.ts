import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEAD_AFTER_IDLE_SECONDS } from '../../products/token/real-token.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { BusRecord } from '../../core/bus/types.ts'
import { TOPICS } from '../../core/bus/topics.ts'
import { claimRow, LeaderboardClaim } from '../../products/wallet/leaderboard-claim.ts'
import { AgentFeaturesResponse } from '../../products/features/agent-features-endpoint.ts'
import { BasketResponse } from '../../products/verdict/basket-endpoint.ts'
import { ProofResponse } from '../../products/verdict/proof-endpoint.ts'
import { PulseResponse } from '../../products/pulse/pulse-endpoint.ts'
import { LATE_AFTER_SECONDS, VERDICT_DELAY_SECONDS } from '../../products/verdict/basket.ts'
import { ConstructedWorld, weth, type Pair } from '../setup/constructed-world.ts'
import { readRecordedOutcomes, referenceBasketData, referenceProofData } from '../setup/outcomes-reference.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'

/**
 * The composite products on a world written event by event, whose answers are known by
 * construction:
 *  - a proven deployer P launches four tokens (A1..A4) that each become real within a minute,
 *    then, three hours later, a clean launch C that becomes real within five minutes;
 *  - a poor deployer D rugs a first token R0 (all liquidity pulled after five minutes), then
 *    sends R's supply to two insiders before its pool exists, launches it and pulls it at +20 min;
 *  - a new deployer Q launches H, which trades 3 times in one hour and 20 times (12 traders) in
 *    the next: heating.
 * Then the world moves forward eight days (C's liquidity is pulled on day 2): the verdicts
 * recorded at +15 min do not change, and the basket and proof are computed from them.
 */
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
let env: Embedded
const T0 = 1_749_999_960 // a whole minute
const TC = T0 + 3 * 3600 // the second round of launches
const NOW1 = TC + 3 * 3600 // end of phase 1 (a whole minute)
const w = new ConstructedWorld(0, T0 - 24)
const P = w.address('de91')
const D = w.address('de92')
const Q = w.address('de93')
const insiders = [w.address('1a51'), w.address('1a52')]
const traders = Array.from({ length: 40 }, () => w.address('7ade'))
const A: Pair[] = []
let R0: Pair, R: Pair, C: Pair, H: Pair

async function get(url: string) {
  const res = await env.api.app.inject({ method: 'GET', url, headers: admin })
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
  return res.json()
}

/** Empty blocks every `step` seconds up to `until` (the chain clock moves in small steps). */
function tickUntil(until: number, step = 60): void {
  while (w.now + step <= until) w.block(step)
  if (w.now < until) w.block(until - w.now)
}

async function ingest(): Promise<void> {
  const last = await w.publish(env.rt.bus)
  const deadline = Date.now() + 120_000
  while (env.processor.watermark() < last) {
    if (Date.now() > deadline) throw new Error(`ingest stuck at ${env.processor.watermark()} < ${last}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Statements chain 4663's batches ran in a step of their refresh, from /metrics. */
async function chainStatements(step: string): Promise<number> {
  const text = (await env.api.app.inject({ method: 'GET', url: '/metrics' })).body
  return Number(new RegExp(`^svc_engine_statements_total\\{consumer="chain-4663",step="chain-writer/${step}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0)
}

const recordedVerdicts = () =>
  queryRows<Record<string, unknown>>(env.rt.ch, 'SELECT * FROM launch_verdicts WHERE chain_id = 4663 ORDER BY launched_at, token, taken_block')

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '5' }, { social: false })
  // t0: P's four launches and D's first, at 1e-5 WETH per token.
  w.block(24)
  const a = [1, 2, 3, 4].map((i) => w.create(P, `A${i}`))
  const r0 = w.create(D, 'RZERO')
  w.block(12)
  for (const t of a) A.push(w.launch(t, P, weth(5), 500_000n))
  R0 = w.launch(r0, D, weth(2), 500_000n)
  for (let round = 0; round < 5; round++) {
    w.block(12)
    for (const p of A) for (let k = 0; k < 10; k++) w.buy(p, traders[(round * 10 + k) % 25]!, weth(0.05), 5000n)
    if (round < 3) w.buy(R0, traders[30 + round]!, weth(0.05), 5000n)
  }
  tickUntil(T0 + 300)
  w.block(12).burn(R0, D, weth(2), 400_000n)
  tickUntil(TC - 24)
  // TC: R's supply goes to two insiders before its pool; C, R and H launch.
  const r = w.create(D, 'RUG')
  w.block(12)
  for (const i of insiders) w.transfer(r, D, i, 100_000n)
  w.block(12)
  C = w.launch(w.create(P, 'CLEAN'), P, weth(10), 1_000_000n)
  R = w.launch(r, D, weth(2), 500_000n)
  H = w.launch(w.create(Q, 'HEAT'), Q, weth(3), 600_000n)
  tickUntil(TC + 60)
  for (let round = 0; round < 5; round++) {
    w.block(12)
    for (let k = 0; k < 10; k++) w.buy(C, traders[(round * 10 + k) % 25]!, weth(0.1), 10_000n)
  }
  w.block(12)
  for (let k = 0; k < 4; k++) w.buy(R, insiders[k % 2]!, weth(0.05), 5000n)
  tickUntil(TC + 20 * 60)
  w.block(12).burn(R, D, weth(2), 400_000n)
  // H: 3 swaps by 3 traders in the hour before the last one.
  tickUntil(TC + 70 * 60)
  w.block(12)
  for (let k = 0; k < 3; k++) w.buy(H, traders[k]!, weth(0.05), 1000n)
  // C: 10 swaps at twice the entry price in that hour, 2 in the last one.
  tickUntil(TC + 100 * 60)
  w.block(12)
  for (let k = 0; k < 10; k++) w.buy(C, traders[k]!, weth(0.2), 10_000n)
  // H: 20 swaps by 12 traders in the last hour.
  tickUntil(TC + 130 * 60)
  for (let round = 0; round < 4; round++) {
    w.block(60)
    for (let k = 0; k < 5; k++) w.buy(H, traders[(round * 5 + k) % 12]!, weth(0.05), 1000n)
  }
  w.block(12)
  for (let k = 0; k < 2; k++) w.buy(C, traders[k]!, weth(0.2), 10_000n)
  tickUntil(NOW1)
  await ingest()
}, 300_000)
afterAll(async () => env?.close())

describe('constructed world, phase 1 (three hours after the second launches)', () => {
  it('pulse: H heating (swaps doubled), C cooling (swaps halved), R dormant, with the counts built', async () => {
    const h = await get(`/pulse/${H.token}`)
    expect(PulseResponse.parse(h)).toEqual(h)
    expect(h.measured_through_block).toBe(w.head)
    expect(h.data.window.clock).toBe('chain')
    expect(h.data.window.chain_time).toBe(new Date(NOW1 * 1000).toISOString().replace('.000Z', 'Z'))
    expect(h.signal).toBe('heating')
    expect(h.data.rule).toBe('swaps_doubled')
    expect(h.data.last_hour).toMatchObject({ swaps: 20, traders: 12, buyers: 12, sellers: 0, net_buyers: 12, weth_volume_wei: (weth(0.05) * 20n).toString(), weth_volume: 1 })
    expect(h.data.previous_hour).toMatchObject({ swaps: 3, traders: 3, weth_volume_wei: (weth(0.05) * 3n).toString() })
    expect(h.data.velocity.swaps_ratio).toBeCloseTo(20 / 3, 3)
    expect(h.data.price_move).toBe(0)
    expect(h.data.liquidity).toMatchObject({ pool: H.pair, net_change_last_hour: '0', removed_share_last_hour: 0, now: weth(3).toString() })

    const c = await get(`/pulse/${C.token}`)
    expect(c.signal).toBe('cooling')
    expect(c.data.rule).toBe('swaps_halved')
    expect(c.data.last_hour).toMatchObject({ swaps: 2, weth_volume_wei: (weth(0.2) * 2n).toString(), close_price_weth: '0.00002' })
    expect(c.data.previous_hour).toMatchObject({ swaps: 10, close_price_weth: '0.00002' })
    // The close before the previous hour was the launch-hour price: +100% over the previous hour's close is 0 in the last hour.
    expect(c.data.price_move).toBe(0)

    const r = await get(`/pulse/${R.token}`)
    expect(r.signal).toBe('dormant')
    expect(r.data.last_hour.swaps).toBe(0)

    const unknown = await get(`/pulse/0x${'ee'.repeat(20)}`)
    expect(unknown).toMatchObject({ signal: 'dormant', data: { found: false } })
  })

  it('records each launch verdict at +15 min: clean launch low_risk, rug high_risk (insiders, poor deployer with a dead launch), R0 avoid', async () => {
    const rows = await recordedVerdicts()
    const of = (t: string) => rows.find((x) => x.token === t)!
    expect(rows.map((x) => x.token).sort()).toEqual([...A.map((p) => p.token), R0.token, C.token, R.token, H.token].sort())
    for (const x of rows) expect(Number(x.lag_seconds)).toBeLessThanOrEqual(600)
    expect(of(C.token)).toMatchObject({ signal: 'low_risk', entry_price_weth: '0.00001' })
    for (const p of A) expect(of(p.token)).toMatchObject({ signal: 'low_risk', entry_price_weth: '0.00001' })
    const rug = of(R.token)
    expect(rug.signal).toBe('high_risk')
    const codes = (JSON.parse(rug.reasons as string) as Array<{ code: string }>).map((x) => x.code)
    expect(codes).toEqual(expect.arrayContaining(['insider_prep', 'deployer_poor_with_dead', 'insiders_hold_supply']))
    // Each signal is recorded with the values it was decided on: the two insiders hold 200,000 of 1,000,000 now.
    const held = (JSON.parse(rug.reasons as string) as Array<{ code: string; measured: Record<string, unknown> }>).find((x) => x.code === 'insiders_hold_supply')!
    expect(held.measured).toEqual({ insider_share_now: 0.2 })
    expect(of(R0.token).signal).toBe('avoid')
    expect(of(H.token).signal).toBe('moderate_risk')
    // Taken in the first batch at or after +15 min, never before.
    const times = await queryRows<{ taken: string; launched: string }>(env.rt.ch, 'SELECT toUnixTimestamp(taken_at) AS taken, toUnixTimestamp(launched_at) AS launched FROM launch_verdicts')
    for (const x of times) expect(Number(x.taken)).toBeGreaterThanOrEqual(Number(x.launched) + 900)
    // The verdict endpoint now: R is dead (its liquidity was pulled at +20 min), C is still low_risk.
    expect((await get(`/verdict/${R.token}`)).signal).toBe('avoid')
    expect((await get(`/verdict/${C.token}`)).signal).toBe('low_risk')
  })

  it('agent features: point_in_time false, identity from the launch, each input equal to its own endpoint', async () => {
    for (const p of [C, R, H]) {
      const f = await get(`/agent/features?token=${p.token}`)
      expect(AgentFeaturesResponse.parse(f)).toEqual(f)
      expect(f.point_in_time).toBe(false)
      const token = (await get(`/token/${p.token}`)).data
      const dep = (await get(`/deployer/${token.deployer}`)).data
      const mentions = (await get(`/mentions/${p.token}`)).data
      const a = f.data.current_state.activity
      expect(a).toEqual({
        swaps: token.swaps, weth_volume_wei: token.weth_volume_wei, unique_traders: token.unique_traders, first_swap_block: token.first_swap_block,
        last_swap_block: token.last_swap_block, last_swap_at: token.last_swap_at, is_real: token.is_real, real_block: token.real_block,
        real_at: token.real_at, dead: token.dead, dead_reason: token.dead_reason,
      })
      expect(f.data.current_state.quote).toEqual(token.price)
      const { launches: _l, launches_total: _t, launches_truncated: _u, ...record } = dep
      expect(f.data.current_state.deployer).toEqual(record)
      expect(f.data.identity).toMatchObject({ deployer: token.deployer, created_block: token.created_block, first_pool: token.launch })
      expect(f.data.observed.mentions).toBe(mentions.total)
      expect(f.data.observed.independent_voices).toBe(mentions.voices.independent_voices)
      expect(f.data.observed.roster_traders).toBeNull()
      expect(f.data.coverage.missing.some((m: string) => m.startsWith('observed.roster_traders'))).toBe(true)
      expect(f.data.coverage.chain.measured_through_block).toBe(w.head)
    }
    const c = await get(`/agent/features?token=${C.token}`)
    expect(c.data.identity.initial_liquidity).toMatchObject({ provider: P, block: c.data.identity.first_pool.block, at: new Date(TC * 1000).toISOString().replace('.000Z', 'Z'), weth_wei: weth(10).toString(), token_amount: (1_000_000n * 10n ** 18n).toString() })
    expect(c.data.current_state.activity.is_real).toBe(true)
    expect(['proven', 'elite']).toContain(c.data.current_state.deployer.band)
    const r = await get(`/agent/features?token=${R.token}`)
    expect(r.data.current_state.deployer.band).toBe('poor')
    expect(r.data.current_state.activity.dead_reason).toBe('liquidity_removed')
    const unknown = await get(`/agent/features?token=0x${'ee'.repeat(20)}`)
    expect(unknown).toMatchObject({ point_in_time: false, data: { identity: { found: false } } })
  })

  it('feed tier=alpha: the measured-caller signal of each launch (count, best grade, first measured call and its minutes after launch)', async () => {
    // 'ace' calls P's five launches one second before their first swaps: five graded calls, measured.
    // 'newbie' calls C first, but has one call only: not measured.
    const post = (id: string, author: string, at: number, token: string) => ({ id, author, posted_at: at, captured_at: at + 5, text: `look ${token}`, links: [] })
    const posts = [...A.map((p, i) => post(`a${i}`, 'ace', T0 + 35, p.token)), post('c0', 'newbie', TC + 30, C.token), post('c1', 'ace', TC + 61, C.token)]
    await env.rt.bus.publish(TOPICS.socialPosts, posts.map((p): BusRecord => ({ key: null, value: JSON.stringify(p) })))
    const deadline = Date.now() + 20_000
    while (Number((await queryRows<{ n: string }>(env.rt.ch, 'SELECT count() AS n FROM mentions'))[0]!.n) < posts.length) {
      if (Date.now() > deadline) throw new Error('posts not stored')
      await new Promise((r) => setTimeout(r, 50))
    }
    await env.grade()
    const ace = (await get('/caller/ace')).data
    const feed = await get('/feed/new?tier=alpha&limit=200')
    const of = (t: string) => feed.data.launches.find((l: { token: string }) => l.token === t)
    expect(of(C.token).caller_signal).toEqual({
      measured_callers: 1,
      best_grade: ace.grade,
      first_call: { handle: 'ace', grade: ace.grade, called_at: new Date((TC + 61) * 1000).toISOString().replace('.000Z', 'Z'), minutes_after_launch: 1 },
    })
    expect(ace.measured).toBe(true)
    expect(of(H.token).caller_signal).toEqual({ measured_callers: 0, best_grade: null, first_call: null })
    // The realtime tier carries no caller_signal.
    const plain = await get('/feed/new?limit=200')
    expect(plain.data.launches.every((l: object) => !('caller_signal' in l))).toBe(true)
    // The feature row counts the same measured caller.
    const f = await get(`/agent/features?token=${C.token}`)
    expect(f.data.observed).toMatchObject({ mentions: 2, distinct_accounts: 2, measured_callers: 1, best_early_rate: ace.early_rate })
  })

  it('agent features: the tracked roster wallets that traded the token, counted once a roster is ingested', async () => {
    // traders[0] and traders[11] bought both H and C; traders[35] never traded; the insiders are not on the roster.
    const roster = [traders[0]!, traders[11]!, traders[35]!].map((wallet, i) =>
      LeaderboardClaim.parse({ source: 'board', wallet, rank: i + 1, claimed_pnl_usd_30d: 1000, claimed_at: new Date(NOW1 * 1000).toISOString() }))
    await env.rt.ch.insert({ table: 'leaderboard_claims', values: roster.map(claimRow), format: 'JSONEachRow' })
    // The next data version (a batch or new social rows) drops cached rows; here: a social version step.
    env.api.watermarks.socialAdvanced(1)
    const count = async (t: string) => (await get(`/agent/features?token=${t}`)).data.observed.roster_traders
    expect(await count(H.token)).toBe(2)
    expect(await count(C.token)).toBe(2)
    expect(await count(R.token)).toBe(0)
    const f = await get(`/agent/features?token=${H.token}`)
    expect(f.data.coverage.missing.some((m: string) => m.startsWith('observed.roster_traders'))).toBe(false)
  })

  it('verdict: every signal shown in data with the values decided on, each equal to its own source', async () => {
    const r = await get(`/verdict/${R.token}`)
    // R's liquidity was pulled by its deployer: nobody can pull what is left; insiders still hold 20%.
    expect(r.data.signals).toMatchObject({ lp: { providers: 0, deployer_share: 0, insider_share: 0 }, insider_share_now: 0.2, structure: null, smart_holders: null })
    expect(r.data.signals.not_available).toHaveLength(2)
    expect(r.data.reasons.map((x: { code: string }) => x.code)).toEqual(expect.arrayContaining(['insiders_hold_supply', 'dead_liquidity_removed']))
    const c = await get(`/verdict/${C.token}`)
    expect(c.data.signals.lp).toEqual({ providers: 1, deployer_share: 1, insider_share: 0 })
    expect(c.data.signals.insider_share_now).toBe(0)
    // Measured callers: the same count and best grade as the alpha feed's caller_signal and the feature row.
    const feed = await get('/feed/new?tier=alpha&limit=200')
    const cs = feed.data.launches.find((l: { token: string }) => l.token === C.token).caller_signal
    expect(c.data.signals.measured_callers).toEqual({ count: cs.measured_callers, best_grade: cs.best_grade })
    expect((await get(`/agent/features?token=${C.token}`)).data.observed.measured_callers).toBe(cs.measured_callers)
    // The report decides on the same signals.
    const rep = await get(`/report/${C.token}`)
    expect({ signal: rep.signal, confidence: rep.confidence, reasons: rep.data.verdict.reasons }).toEqual({ signal: c.signal, confidence: c.confidence, reasons: c.data.reasons })
  })

  it('basket after phase 1: the five low_risk launches, marked at 1 h (no 24 h mark yet)', async () => {
    const b = await get('/basket')
    expect(BasketResponse.parse(b)).toEqual(b)
    expect(b.data.members_total).toBe(5)
    expect(b.data.members.map((m: { token: string }) => m.token).sort()).toEqual([...A.map((p) => p.token), C.token].sort())
    expect(b.data.horizons['1h']).toEqual({ marked: 5, hit_rate: 0, median_return: 0 })
    expect(b.data.horizons['24h']).toEqual({ marked: 0, hit_rate: null, median_return: null })
    expect(b.data.equity_curve).toEqual([])
    expect(b.measured_through_block).toBe(w.head)
  })
})

describe('constructed world, phase 2 (eight days later)', () => {
  let before: Array<Record<string, unknown>>
  beforeAll(async () => {
    before = await recordedVerdicts()
    // Day 2: C's liquidity is pulled. Day 6: A1 and A2 trade once more (alive at their 7 d mark).
    tickUntil(TC + 2 * 86_400, 7200)
    w.block(12).burn(C, P, weth(10), 900_000n)
    tickUntil(TC + 6 * 86_400, 7200)
    w.block(12)
    w.buy(A[0]!, traders[0]!, weth(0.05), 5000n)
    w.buy(A[1]!, traders[1]!, weth(0.05), 5000n)
    tickUntil(TC + 8 * 86_400, 7200)
    await ingest()
  }, 300_000)

  it('the +15 min verdicts recorded earlier do not change as the world moves on', async () => {
    expect(await recordedVerdicts()).toEqual(before)
    // What the rule says today differs for C: hindsight is not written back.
    expect((await get(`/verdict/${C.token}`)).signal).toBe('avoid')
    const b = await get('/basket')
    expect(b.data.members.find((m: { token: string }) => m.token === C.token)).toMatchObject({ entry_price_weth: '0.00001' })
  })

  it('basket: 24 h and 7 d marks, hit rate, medians and the equity curve, as built', async () => {
    const b = await get('/basket')
    expect(BasketResponse.parse(b)).toEqual(b)
    expect(b.data.members_total).toBe(5)
    expect(b.data.horizons['24h']).toEqual({ marked: 5, hit_rate: 0.2, median_return: 0 })
    expect(b.data.horizons['7d']).toEqual({ marked: 5, hit_rate: 0.2, median_return: 0 })
    const c = b.data.members.find((m: { token: string }) => m.token === C.token)
    expect(c.marks['24h']).toMatchObject({ return: 1, price_weth: '0.00002', is_real: true, dead: null })
    expect(c.marks['7d']).toMatchObject({ return: 1, dead: 'liquidity_removed' })
    const curve = b.data.equity_curve
    expect(curve).toHaveLength(5)
    expect(curve[4]).toMatchObject({ closed: 5, equity: 6, cumulative_return: 0.2 })
    for (let i = 1; i < curve.length; i++) expect(Date.parse(curve[i].at)).toBeGreaterThanOrEqual(Date.parse(curve[i - 1].at))
  })

  it('proof: per recorded signal, real and dead shares at 7 d and the median 24 h return', async () => {
    const p = await get('/proof.json')
    expect(ProofResponse.parse(p)).toEqual(p)
    const of = (s: string) => p.data.signals.find((x: { signal: string }) => x.signal === s)
    expect(of('low_risk')).toEqual({ signal: 'low_risk', tokens: 5, marked_7d: 5, became_real_share: 1, dead_within_7d_share: 0.6, marked_24h_with_return: 5, median_return_24h: 0 })
    expect(of('high_risk')).toMatchObject({ tokens: 1, marked_7d: 1, became_real_share: 0, dead_within_7d_share: 1 })
    expect(of('avoid')).toMatchObject({ tokens: 1, marked_7d: 1, dead_within_7d_share: 1 })
    expect(of('moderate_risk')).toMatchObject({ tokens: 1, marked_7d: 1, became_real_share: 0, dead_within_7d_share: 1 })
    expect(p.data.late_excluded).toBe(0)
    expect(p.measured_through_block).toBe(w.head)
  })

  it('the marks the pipeline took carry their verdict\'s facts, and the served figures equal the full recompute from the recorded rows', async () => {
    const [m] = await queryRows<{ n: string; wrong: string }>(
      env.rt.ch,
      `SELECT count() AS n, countIf(m.verdict_late != toUInt8(v.lag_seconds > ${LATE_AFTER_SECONDS}) OR m.verdict_priced != v.quoted) AS wrong
       FROM launch_marks AS m INNER JOIN launch_verdicts AS v ON v.token = m.token WHERE m.chain_id = 4663`,
    )
    expect(Number(m!.n)).toBeGreaterThan(20)
    expect(Number(m!.wrong)).toBe(0)
    const { verdicts, marks } = await readRecordedOutcomes(env.rt.ch, 4663)
    expect((await get('/basket')).data).toEqual(referenceBasketData(verdicts, marks))
    expect((await get('/proof.json')).data).toEqual(referenceProofData(verdicts, marks))
  })
  it('a batch where nothing can fall due asks the engine nothing for verdicts and marks, a launch\'s batch included; the batch reaching its +15 min reads and takes its verdict, from its own records', async () => {
    const outcomeStatements = () => chainStatements('refresh/outcomes')
    const taken = await outcomeStatements()
    // Every verdict and mark of the world is taken: the next candidates lie beyond any chain time.
    expect(taken, 'the verdicts and marks taken so far were read').toBeGreaterThan(0)
    for (let i = 0; i < 3; i++) {
      w.block(12)
      await ingest()
    }
    expect(await outcomeStatements()).toBe(taken)
    // A launch is a verdict candidate no earlier read knew of, and its batch tells its time: its
    // verdict falls due 15 minutes of chain time later, so its batch reads nothing either.
    w.block(12)
    const late = w.create(Q, 'LATE')
    const lateLaunch = w.launch(late, Q, weth(1), 100_000n)
    await ingest()
    expect(await outcomeStatements()).toBe(taken)
    const verdictOf = () => queryRows<{ n: string; quoted: number; block: string }>(env.rt.ch, 'SELECT count() AS n, max(quoted) AS quoted, max(entry_quote_block) AS block FROM launch_verdicts WHERE token = {t:String}', { t: late })
    expect(Number((await verdictOf())[0]!.n)).toBe(0)
    // The first batch whose chain time reaches the launch + 15 min reads what is due and takes it,
    // from that batch's own records (what fell due is read beside them, the verdict once they are
    // written): the token's first quote is this batch's buy.
    w.block(VERDICT_DELAY_SECONDS)
    w.buy(lateLaunch, traders[0]!, weth(0.05), 5000n)
    await ingest()
    expect(await outcomeStatements()).toBeGreaterThan(taken)
    const [swap] = await queryRows<{ block: string }>(env.rt.ch, 'SELECT max(block_number) AS block FROM swaps WHERE token = {t:String}', { t: late })
    expect(await verdictOf()).toEqual([{ n: '1', quoted: 1, block: swap!.block }])
  })

  it('a batch whose traders and tokens were all counted before counts nothing and reads nothing; a new trader is counted without a read (the processor started on an empty chain)', async () => {
    const traded = async () => ((await get('/stats')).data.chains as Array<{ chain_id: number; unique_traders: number }>).find((c) => c.chain_id === 4663)!.unique_traders
    const before = { statements: await chainStatements('refresh/traders'), traders: await traded() }
    w.buy(A[0]!, traders[0]!, weth(0.01), 100n)
    w.block(12)
    await ingest()
    // Known to the processor (its batches counted them): nothing read, nothing inserted, the totals unchanged.
    expect(await chainStatements('refresh/traders')).toBe(before.statements)
    expect(await traded()).toBe(before.traders)
    // A new trader is counted: the totals and the trader inserted. The processor started on an
    // empty chain and learnt every trader it counted, so an unknown one is new: nothing is read.
    const newcomer = w.address('7e57')
    w.buy(A[0]!, newcomer, weth(0.01), 100n)
    w.block(12)
    await ingest()
    expect(await chainStatements('refresh/traders')).toBe(before.statements + 2)
    expect(await traded()).toBe(before.traders + 1)
    // The new trader again, beside an old one: both known since their batches, nothing read.
    w.buy(A[0]!, newcomer, weth(0.01), 100n)
    w.buy(A[0]!, traders[0]!, weth(0.01), 100n)
    w.block(12)
    await ingest()
    expect(await chainStatements('refresh/traders')).toBe(before.statements + 2)
    expect(await traded()).toBe(before.traders + 1)
  })

  it('a token turns real in a batch: told by its records\' read, its block searched once; a batch of tokens short of real or real already searches nothing', async () => {
    const searched = await chainStatements('refresh/token_real')
    // H (short of real) and A[0] (real already) trade: nothing to search.
    w.block(12)
    w.buy(H, traders[0]!, weth(0.01), 100n)
    w.buy(A[0]!, traders[1]!, weth(0.01), 100n)
    await ingest()
    expect(await chainStatements('refresh/token_real')).toBe(searched)
    expect((await get(`/token/${H.token}`)).data.is_real).toBe(false)
    // A new token's 50th swap, 25th trader and 2.5 WETH all land in one block: real in it.
    w.block(12)
    const solid = w.launch(w.create(Q, 'SOLID'), Q, weth(5), 500_000n)
    w.block(12)
    for (let k = 0; k < 50; k++) w.buy(solid, traders[k % 25]!, weth(0.05), 5000n)
    const realIn = w.head
    w.block(12)
    await ingest()
    expect(await chainStatements('refresh/token_real')).toBe(searched + 1)
    expect((await get(`/token/${solid.token}`)).data).toMatchObject({ is_real: true, real_block: realIn })
    const [stored] = await queryRows<{ real_block: string }>(env.rt.ch, 'SELECT min(real_block) AS real_block FROM token_real WHERE chain_id = 4663 AND token = {t:String}', { t: solid.token })
    expect(Number(stored!.real_block)).toBe(realIn)
  })

  it('a batch before any token can turn idle reads nothing for idle tokens; once one can, its deployer\'s dead count follows', async () => {
    // A fresh deployer's one launch, active now: idle 72 h from now, not before.
    const fresh = w.address('de94')
    w.block(12)
    w.launch(w.create(fresh, 'IDLER'), fresh, weth(1), 100_000n)
    await ingest()
    const read = await chainStatements('refresh/idle')
    for (let i = 0; i < 3; i++) {
      w.block(12)
      await ingest()
    }
    expect(await chainStatements('refresh/idle'), 'batches with no token due to turn idle').toBe(read)
    expect((await get(`/deployer/${fresh}`)).data).toMatchObject({ launched: 1, dead: 0 })
    // 73 hours on, an hour a block (five blocks a batch): the launch turned idle on the way.
    tickUntil(w.now + DEAD_AFTER_IDLE_SECONDS + 3600, 3600)
    await ingest()
    expect((await get(`/deployer/${fresh}`)).data).toMatchObject({ launched: 1, dead: 1 })
    const reads = (await chainStatements('refresh/idle')) - read
    expect(reads).toBeGreaterThan(0)
    // Far fewer reads than batches: only where a token could have turned idle.
    expect(reads).toBeLessThan(10)
  })
})

