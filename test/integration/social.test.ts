import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { cacheLookupCounts } from '../../core/metrics.ts'
import type { BusRecord } from '../../core/bus/types.ts'
import type { FollowSnapshot, SocialPost, TgSighting } from '../../pipelines/records/social.ts'
import { TOPICS } from '../../core/bus/topics.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'

/**
 * The social rules on constructed firehose data: chain data comes from the simulator (tokens,
 * swaps, prices), the social records are written here, so every expected figure is known.
 */
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
let env: Embedded
let tokens: Array<{ token: string; symbol: string }>
let chainStart: number
let chainEnd: number
let postSeq = 0

async function get(url: string, headers: Record<string, string> = admin) {
  const res = await env.api.app.inject({ method: 'GET', url, headers })
  return { status: res.statusCode, headers: res.headers, json: () => res.json() }
}

async function publish(topic: string, records: object[]): Promise<void> {
  await env.rt.bus.publish(topic, records.map((r): BusRecord => ({ key: null, value: JSON.stringify(r) })))
}

/** Publish and wait until the social processor has stored them and the grader has seen them. */
async function settle(table: string, atLeast: number): Promise<void> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const [r] = await queryRows<{ n: string }>(env.rt.ch, `SELECT count() AS n FROM ${table}`)
    if (Number(r!.n) >= atLeast) {
      // Calls are graded by the grader, after they are stored.
      await env.grade()
      return
    }
    if (Date.now() > deadline) throw new Error(`${table} has ${r!.n} rows, expected ${atLeast}`)
    await new Promise((res) => setTimeout(res, 50))
  }
}

const count = async (table: string) => Number((await queryRows<{ n: string }>(env.rt.ch, `SELECT count() AS n FROM ${table}`))[0]!.n)

function post(author: string, at: number, text: string): SocialPost {
  return { id: `t${postSeq++}`, author, posted_at: at, captured_at: at + 5, text, links: [] }
}

beforeAll(async () => {
  env = await startEmbedded({}, { social: false })
  await env.ingestThrough(3000)
  tokens = await queryRows(env.rt.ch, "SELECT address AS token, symbol FROM contract_creations ORDER BY block_number, address")
  const [t] = await queryRows<{ a: string; b: string }>(env.rt.ch, 'SELECT toUnixTimestamp(min(timestamp)) AS a, toUnixTimestamp(max(timestamp)) AS b FROM chain_blocks')
  chainStart = Number(t!.a)
  chainEnd = Number(t!.b)
})
afterAll(async () => env?.close())

describe('mentions', () => {
  it('/mentions/{token} returns the latest 200 with the true total and a truncation flag; no post text', async () => {
    const t = tokens[0]!.token
    const before = await count('mentions')
    await publish(TOPICS.socialPosts, Array.from({ length: 250 }, (_, i) => post(`fan_${String(i).padStart(3, '0')}`, chainStart + 60 + i, `buy ${t} now, secret words`)))
    await settle('mentions', before + 250)
    const { data } = (await get(`/mentions/${t}`)).json()
    expect(data.total).toBe(250)
    expect(data.mentions).toHaveLength(200)
    expect(data.truncated).toBe(true)
    expect(data.first_mention).toMatchObject({ author: 'fan_000' })
    expect(data.mentions[0].author).toBe('fan_249') // newest first
    expect(JSON.stringify(data)).not.toContain('secret words')
  })

  it('an ambiguous cashtag is recorded as ambiguous, never guessed', async () => {
    const [dup] = await queryRows<{ symbol: string }>(env.rt.ch, "SELECT symbol FROM contract_creations WHERE symbol != '' GROUP BY symbol HAVING count() > 1 LIMIT 1")
    const before = await count('mentions')
    await publish(TOPICS.socialPosts, [post('ambig_poster', chainStart + 100, `who is on $${dup!.symbol}?`)])
    await settle('mentions', before + 1)
    const rows = await queryRows<{ token: string; ambiguous: number; symbol: string }>(env.rt.ch, "SELECT token, ambiguous, symbol FROM mentions WHERE author = 'ambig_poster'")
    expect(rows).toEqual([{ token: '', ambiguous: 1, symbol: dup!.symbol.toUpperCase() }])
  })

  it('a mutual-follow cluster counts as one voice', async () => {
    const t = tokens[1]!.token
    const ring = ['ring_x1', 'ring_x2', 'ring_x3']
    const snapshots: FollowSnapshot[] = ring.map((a) => ({ account: a, observed_at: chainStart, following: ring.filter((b) => b !== a), watched: false }))
    // A one-way follow does not make a cluster.
    snapshots.push({ account: 'solo_1', observed_at: chainStart, following: ['solo_2'], watched: false })
    const beforeSnaps = await count('follow_snapshots')
    await publish(TOPICS.socialFollows, snapshots)
    await settle('follow_snapshots', beforeSnaps + snapshots.length)
    const before = await count('mentions')
    await publish(TOPICS.socialPosts, [...ring, 'solo_1', 'solo_2'].map((a, i) => post(a, chainStart + 200 + i, `${t}`)))
    await settle('mentions', before + 5)
    const { data } = (await get(`/mentions/${t}`)).json()
    expect(data.voices).toEqual({ accounts: 5, clustered_accounts: 3, clusters: 1, independent_voices: 3 })
    const card = (await get('/caller/ring_x2')).json().data
    expect(card.clustered).toBe(true)
    expect((await get('/caller/solo_1')).json().data.clustered).toBe(false)
  })
})

describe('calls', () => {
  it('/caller/{handle}/calls returns the latest 100 calls with the true total and a truncation flag', async () => {
    expect(tokens.length).toBeGreaterThan(105)
    const before = await count('mentions')
    // One call per token, each token mentioned twice: calls are first mentions only.
    const posts = tokens.slice(0, 105).flatMap((t, i) => [post('busy', chainStart + 300 + i, t.token), post('busy', chainStart + 400 + i, t.token)])
    await publish(TOPICS.socialPosts, posts)
    await settle('mentions', before + posts.length)
    const { data } = (await get('/caller/busy/calls')).json()
    expect(data.total).toBe(105)
    expect(data.calls).toHaveLength(100)
    expect(data.truncated).toBe(true)
    expect(data.calls[0].token).toBe(tokens[104]!.token) // newest call first
    expect(new Set(data.calls.map((c: { token: string }) => c.token)).size).toBe(100)
  })

  it("a caller's grade equals an independent computation from the swaps", async () => {
    const sample = tokens.slice(0, 105)
    // Entry, exit and run computed here from the raw swaps and real blocks, not by the service's query.
    const swaps = await queryRows<{ token: string; t: string; w: string; a: string }>(
      env.rt.ch,
      "SELECT token, toUnixTimestamp(block_time) AS t, toString(weth_in + weth_out) AS w, toString(token_in + token_out) AS a FROM swaps WHERE token_in + token_out > 0 ORDER BY block_number, log_index",
    )
    const real = new Map((await queryRows<{ token: string; t: string }>(env.rt.ch, 'SELECT token, toUnixTimestamp(min(real_at)) AS t FROM token_real GROUP BY token')).map((r) => [r.token, Number(r.t)]))
    let graded = 0, early = 0, momentum = 0, hits = 0
    const returns: number[] = []
    sample.forEach((tk, i) => {
      const at = chainStart + 300 + i
      const s = swaps.filter((x) => x.token === tk.token)
      const entry = s.find((x) => Number(x.t) >= at)
      const exit = [...s].reverse().find((x) => Number(x.t) <= at + 3600)
      if (!entry || Number(entry.t) > at + 3600 || !exit || Number(exit.t) < Number(entry.t) || chainEnd < at + 3600) return
      const r = (Number(exit.w) / Number(exit.a)) / (Number(entry.w) / Number(entry.a)) - 1
      graded++
      returns.push(r)
      if (r > 0) hits++
      const run = real.get(tk.token)
      if (run !== undefined && at < run) early++
      if (run !== undefined && at >= run) momentum++
    })
    returns.sort((a, b) => a - b)
    const med = returns.length % 2 ? returns[returns.length >> 1]! : (returns[returns.length / 2 - 1]! + returns[returns.length / 2]!) / 2
    const card = (await get('/caller/busy')).json().data
    expect(graded).toBeGreaterThan(10)
    expect(card.graded_calls).toBe(graded)
    expect(card.early_rate).toBeCloseTo(early / graded, 4)
    expect(card.momentum_rate).toBeCloseTo(momentum / graded, 4)
    expect(card.hit_rate_1h).toBeCloseTo(hits / graded, 4)
    expect(card.median_return_1h).toBeCloseTo(med, 3)
    const score = Math.round(100 * (0.5 * (early / graded) + 0.3 * (hits / graded) + 0.2 * Math.min(1, Math.max(0, 0.5 + med))))
    expect(card.score).toBe(score)
    expect(card.grade).toBe(score >= 75 ? 'A' : score >= 55 ? 'B' : score >= 35 ? 'C' : 'D')
    expect(card.measured).toBe(true)
  })

  it('/signals/calls with wait holds a poll at the head until the next call is served', { timeout: 60_000 }, async () => {
    const q = (since: string | null, extra = '') => `/signals/calls?min_calls=0&min_early_rate=0&min_rank_score=0&limit=200${since ? `&since=${encodeURIComponent(since)}` : ''}${extra}`
    // Follow next_since to the head: the first empty page.
    let since: string | null = null
    for (let page = (await get(q(since))).json().data; page.calls.length > 0; page = (await get(q(since))).json().data) since = page.next_since
    expect(since).not.toBeNull()
    const started = Date.now()
    expect((await get(q(since, '&wait=1'))).json().data.calls).toEqual([])
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    // busy (measured above) calls a token it never called, captured after the head.
    const fresh = tokens[110]!.token
    const waiting = get(q(since, '&wait=30'))
    let answeredAt = 0
    void waiting.then(() => (answeredAt = Date.now()))
    await new Promise((r) => setTimeout(r, 300))
    expect(answeredAt).toBe(0)
    const before = await count('mentions')
    await publish(TOPICS.socialPosts, [post('busy', chainStart + 5000, fresh)])
    await settle('mentions', before + 1)
    const calls = (await waiting).json().data.calls as Array<{ id: string; token: string }>
    expect(calls.map((c) => c.id)).toEqual([`busy:${fresh}`])
    // What the long poll answered is what a plain poll from the same cursor answers now.
    expect((await get(q(since))).json().data.calls.map((c: { id: string }) => c.id)).toEqual([`busy:${fresh}`])
    expect((await get(q(since, '&wait=31'))).status).toBe(400)
  })

  it('/signals/calls: a page with calls asked again at the same data is the kept page; new social rows read it again', async () => {
    const q = '/signals/calls?min_calls=0&min_early_rate=0&min_rank_score=0&limit=3'
    const first = (await get(q)).json()
    expect(first.data.calls.length).toBeGreaterThan(0)
    const hits = cacheLookupCounts('signal_pages').hit
    const rows = cacheLookupCounts('token_rows')
    expect((await get(q)).json()).toEqual(first)
    expect(cacheLookupCounts('signal_pages').hit).toBe(hits + 1)
    // Answered without reading a token record again.
    expect(cacheLookupCounts('token_rows')).toEqual(rows)
    const before = await count('mentions')
    await publish(TOPICS.socialPosts, [post('keptprobe', chainStart + 5100, first.data.calls[0].token)])
    await settle('mentions', before + 1)
    expect((await get(q)).json().data.calls).toEqual(first.data.calls)
    expect(cacheLookupCounts('signal_pages').hit).toBe(hits + 1)
  })
})

describe('follows', () => {
  it('baseline edges are labelled and never reported as dated follows; transitions are', async () => {
    const t0 = chainStart
    const t1 = t0 + 6 * 3600
    const before = await count('follow_snapshots')
    await publish(TOPICS.socialFollows, [
      { account: 'boss', observed_at: t0, following: ['alpha', 'beta'], watched: true },
      { account: 'boss', observed_at: t1, following: ['beta', 'gamma'], watched: true },
    ])
    await settle('follow_snapshots', before + 2)
    const events = (await get('/social/follows?watched=boss')).json().data.events
    expect(events.map((e: { event: string; followed: string; observed_at: string }) => [e.event, e.followed, e.observed_at]).sort()).toEqual([
      ['follow', 'gamma', new Date(t1 * 1000).toISOString().replace('.000Z', 'Z')],
      ['unfollow', 'alpha', new Date(t1 * 1000).toISOString().replace('.000Z', 'Z')],
    ])
    const beta = (await get('/follows/beta')).json().data
    expect(beta.followed_by).toEqual([{ watched: 'boss', followed_at: null, already_following_when_tracking_began: true }])
    expect(beta.history).toEqual([])
    const gamma = (await get('/follows/gamma')).json().data
    expect(gamma.followed_by).toEqual([{ watched: 'boss', followed_at: new Date(t1 * 1000).toISOString().replace('.000Z', 'Z'), already_following_when_tracking_began: false }])
    expect((await get('/follows/alpha')).json().data.followed_by).toEqual([])
  })

  it('/social/follows cursors never repeat or skip an event while polls arrive', async () => {
    const seen = new Map<string, number>()
    let since: string | null = null
    const base = chainStart + 7 * 3600
    let published = 0
    for (let round = 0; round < 6; round++) {
      // Each round: three watched principals each gain two follows in one poll.
      const snaps = ['w1', 'w2', 'w3'].flatMap((w) => [
        ...(round === 0 ? [{ account: w, observed_at: base - 3600, following: [] as string[], watched: true }] : []),
        { account: w, observed_at: base + round * 3600, following: Array.from({ length: (round + 1) * 2 }, (_, k) => `f_${w}_${k}`), watched: true },
      ])
      const before = await count('follow_snapshots')
      await publish(TOPICS.socialFollows, snaps)
      await settle('follow_snapshots', before + snaps.length)
      published += 6
      for (;;) {
        const q: string = `/social/follows?limit=4${since ? `&since=${encodeURIComponent(since)}` : ''}`
        const page = (await get(q)).json().data
        for (const e of page.events) if (e.watched.startsWith('w')) seen.set(e.id, (seen.get(e.id) ?? 0) + 1)
        if (page.next_since === since || page.events.length === 0) break
        since = page.next_since
      }
    }
    expect(seen.size).toBe(published)
  })

  it('/social/follows with wait holds a poll at the head until the next poll of a watched account lands', { timeout: 60_000 }, async () => {
    const q = (since: string | null, extra = '') => `/social/follows?watched=late${since ? `&since=${encodeURIComponent(since)}` : ''}${extra}`
    const t0 = chainStart + 20 * 3600
    let before = await count('follow_snapshots')
    await publish(TOPICS.socialFollows, [{ account: 'late', observed_at: t0, following: ['x1'], watched: true }, { account: 'late', observed_at: t0 + 3600, following: ['x1', 'x2'], watched: true }])
    await settle('follow_snapshots', before + 2)
    let since: string | null = null
    for (let page = (await get(q(since))).json().data; page.events.length > 0; page = (await get(q(since))).json().data) since = page.next_since
    expect(since).not.toBeNull()
    const waiting = get(q(since, '&wait=30'))
    let answeredAt = 0
    void waiting.then(() => (answeredAt = Date.now()))
    await new Promise((r) => setTimeout(r, 300))
    expect(answeredAt).toBe(0)
    before = await count('follow_snapshots')
    await publish(TOPICS.socialFollows, [{ account: 'late', observed_at: t0 + 7200, following: ['x2', 'x3'], watched: true }])
    await settle('follow_snapshots', before + 1)
    const events = (await waiting).json().data.events as Array<{ event: string; followed: string }>
    expect(events.map((e) => `${e.event}:${e.followed}`).sort()).toEqual(['follow:x3', 'unfollow:x1'])
  })
})

describe('messaging rooms', () => {
  it('/tg/first-call/{token} is reportable only from k rooms on, and names no room', async () => {
    const t = tokens[2]!.token
    const sighting = (room: string, n: number, at: number): TgSighting => ({ room, message_id: `m${n}`, token: t, seen_at: at })
    const before = await count('tg_sightings')
    await publish(TOPICS.tgSightings, [sighting('aa'.repeat(8), 1, chainStart + 10), sighting('bb'.repeat(8), 2, chainStart + 20), sighting('bb'.repeat(8), 3, chainStart + 30)])
    await settle('tg_sightings', before + 3)
    const under = (await get(`/tg/first-call/${t}`)).json().data
    expect(under).toMatchObject({ reportable: false, k_threshold: 3, telegram_first_at: null, telegram_source_count: null, telegram_mentions: null, lead_minutes: null })
    await publish(TOPICS.tgSightings, [sighting('cc'.repeat(8), 4, chainStart + 40)])
    await settle('tg_sightings', before + 4)
    const at = (await get(`/tg/first-call/${t}`)).json().data
    expect(at).toMatchObject({ reportable: true, telegram_source_count: 3, telegram_mentions: 4, telegram_first_at: new Date((chainStart + 10) * 1000).toISOString().replace('.000Z', 'Z') })
    expect(JSON.stringify(at)).not.toContain('aaaa')
    const firstPost = (await queryRows<{ t: string }>(env.rt.ch, 'SELECT toUnixTimestamp(min(posted_at)) AS t FROM mentions WHERE token = {t:String}', { t }))[0]!.t
    expect(at.telegram_was_first).toBe(chainStart + 10 < Number(firstPost))
  })
})

describe('rate cap', () => {
  it('/caller/{handle} answers 429 with Retry-After after 30 requests a minute from one IP', async () => {
    // Stay clear of a minute boundary, where the fixed window would reset mid-test.
    if (new Date().getSeconds() > 50) await new Promise((r) => setTimeout(r, 11_000))
    const statuses: number[] = []
    let retryAfter: string | undefined
    for (let i = 0; i < 31; i++) {
      const r = await env.api.app.inject({ method: 'GET', url: '/caller/someone', remoteAddress: '203.0.113.9' })
      statuses.push(r.statusCode)
      if (r.statusCode === 429) {
        retryAfter = r.headers['retry-after'] as string
        expect(r.json().error.code).toBe('rate_limited')
      }
    }
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true)
    expect(statuses[30]).toBe(429)
    expect(Number(retryAfter)).toBeGreaterThan(0)
    const other = await env.api.app.inject({ method: 'GET', url: '/caller/someone', remoteAddress: '203.0.113.10' })
    expect(other.statusCode).toBe(200)
  })
})
