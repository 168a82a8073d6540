import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { cacheLookupCounts } from '../../core/metrics.ts'
import { isoToMicros } from '../../core/serving/cursor.ts'
import { nextServingSeq } from '../../core/records/serving-changes.ts'
import { blockAt } from '../../pipelines/process/serving-refresh.ts'
import { createTokenServing, type FeedPage, type TokenServing } from '../../products/token/token-serving.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
let env: Embedded

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '25' })
  await env.ingestThrough(300)
})
afterAll(async () => env?.close())

async function feed(query: string) {
  const res = await env.api.app.inject({ method: 'GET', url: `/feed/new?${query}`, headers: admin })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { launches: Array<{ token: string; visible_at: string; deployer_score: number | null }>; next_since: string | null }
}

describe('GET /feed/new cursors', () => {
  it('polling with next_since never repeats and never skips a launch while launches arrive', { timeout: 120_000 }, async () => {
    const seen: string[] = []
    // The first page and its cursor from one call: a launch served between two calls would be
    // on the second page and after the first call's cursor, and be counted twice.
    const first = await feed('limit=3')
    let since = first.next_since!
    seen.push(...first.launches.map((l) => l.token))
    // Ingest in the background while a poller follows the cursor with small pages.
    let target = 300
    const ingesting = (async () => {
      for (let i = 0; i < 5; i++) await env.ingestThrough((target += 100))
    })()
    let done = false
    void ingesting.then(() => (done = true))
    while (!done) {
      const page = await feed(`since=${encodeURIComponent(since)}&limit=2`)
      seen.push(...page.launches.map((l) => l.token))
      since = page.next_since ?? since
      await new Promise((r) => setTimeout(r, 5))
    }
    for (;;) {
      const page = await feed(`since=${encodeURIComponent(since)}&limit=2`)
      if (page.launches.length === 0) break
      seen.push(...page.launches.map((l) => l.token))
      since = page.next_since!
    }
    const all = await queryRows<{ token: string }>(env.rt.ch, 'SELECT token FROM launches FINAL ORDER BY visible_at')
    expect(all.length).toBeGreaterThan(first.launches.length + 5)
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen).toEqual(all.slice(all.length - seen.length).map((r) => r.token))
    // The first page was the latest three at that time; everything after it was seen once.
    expect(seen.slice(0, 3)).toEqual(first.launches.map((l) => l.token))
  })

  it('min_score keeps only launches whose deployer scores at least that', async () => {
    const scored = (await feed('limit=200')).launches.map((l) => l.deployer_score ?? -1)
    const threshold = [...scored].sort((a, b) => a - b)[Math.floor(scored.length / 2)]!
    const page = await feed(`limit=200&min_score=${threshold}`)
    expect(page.launches.length).toBeGreaterThan(0)
    expect(page.launches.length).toBeLessThan(scored.length + 1)
    for (const l of page.launches) expect(l.deployer_score).toBeGreaterThanOrEqual(threshold)
  })

  it('tier=free is free of charge and shows only launches visible for at least 10 minutes', async () => {
    const unpaid = await env.api.app.inject({ method: 'GET', url: '/feed/new?tier=free' })
    expect(unpaid.statusCode).toBe(200)
    expect(unpaid.json().data).toMatchObject({ tier: 'free', delayed_seconds: 600, launches: [] })
    const paidWithoutPayment = await env.api.app.inject({ method: 'GET', url: '/feed/new' })
    expect(paidWithoutPayment.statusCode).toBe(402)
    // Age three launches by 20 minutes; the next watermark's book shows exactly those to tier=free.
    const aged = await queryRows<{ token: string }>(env.rt.ch, 'SELECT token FROM launches ORDER BY visible_at LIMIT 3')
    await env.rt.ch.command({
      query: 'ALTER TABLE launches UPDATE visible_at = visible_at - INTERVAL 20 MINUTE WHERE token IN {t:Array(String)}',
      query_params: { t: aged.map((a) => a.token) },
      clickhouse_settings: { mutations_sync: '2' },
    })
    // The feed reads launch_feed, ordered by visible_at (a key column): re-insert those rows aged.
    await env.rt.ch.command({ query: 'DELETE FROM launch_feed WHERE token IN {t:Array(String)}', query_params: { t: aged.map((a) => a.token) } })
    await env.rt.ch.command({
      query: 'INSERT INTO launch_feed SELECT chain_id, visible_at, token, block_number FROM launches WHERE token IN {t:Array(String)}',
      query_params: { t: aged.map((a) => a.token) },
    })
    // Rows changed under the service: tell it as a rollback does, by a served batch's marker below
    // the block served before (kept feed windows are read again at the next sync).
    const below = env.processor.watermark() - 1
    await env.rt.ch.insert({
      table: 'serving_changes',
      values: [{ chain_id: 4663, seq: nextServingSeq(), kind: 'batch', key: '', watermark: below, chain_time: (await blockAt(env.rt.ch, 4663, below)).time }],
      format: 'JSONEachRow',
    })
    await env.ingestThrough(env.processor.watermark() + 10)
    const free = (await env.api.app.inject({ method: 'GET', url: '/feed/new?tier=free&limit=200' })).json().data
    expect(free.launches.map((l: { token: string }) => l.token).sort()).toEqual(aged.map((a) => a.token).sort())
  })
})

describe('the feed window (launches kept in memory, cursor order)', () => {
  const servings = () => ({
    kept: env.api.deps.tokens,
    small: createTokenServing({ ch: env.rt.ch, watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 1_000, feedWindowItems: 7 }),
    engine: createTokenServing({ ch: env.rt.ch, watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 1_000, feedWindowItems: 0 }),
  })
  const view = (p: FeedPage) => ({ tokens: p.tokens.map((t) => t.token), lastUs: p.lastUs })

  async function compare(s: Record<string, TokenServing>) {
    const nowUs = Date.now() * 1000
    const launches = (await s.engine!.feedAfter(0, nowUs, 10_000)).tokens.map((t) => t.launch!.visibleUs)
    expect(launches.length).toBeGreaterThan(10)
    // Launch cursors and those just before them (a sample across the feed, the newest all), one before all and one past the head.
    const step = Math.max(1, Math.floor(launches.length / 20))
    const sampled = launches.filter((_, i) => i % step === 0 || i >= launches.length - 10)
    const cursors = [0, ...sampled.flatMap((us) => [us - 1, us]), launches.at(-1)! + 1]
    for (const c of cursors) {
      for (const limit of [1, 4]) {
        const want = view(await s.engine!.feedAfter(c, nowUs, limit))
        expect(view(await s.kept!.feedAfter(c, nowUs, limit)), `after ${c}`).toEqual(want)
        expect(view(await s.small!.feedAfter(c, nowUs, limit)), `after ${c} (small window)`).toEqual(want)
        const wantBefore = view(await s.engine!.feedBefore(nowUs, limit, c))
        expect(view(await s.kept!.feedBefore(nowUs, limit, c)), `before ${c}`).toEqual(wantBefore)
        expect(view(await s.small!.feedBefore(nowUs, limit, c)), `before ${c} (small window)`).toEqual(wantBefore)
      }
    }
  }

  it('answers every page exactly as the engine does, also past its bound and after more batches', { timeout: 120_000 }, async () => {
    const s = servings()
    await compare(s)
    await env.ingestThrough(env.processor.watermark() + 60)
    await compare(s)
  })

  it('a long poll at the head answers when the batch that serves the next launch lands', async () => {
    const head = await feed('limit=1')
    const since = head.next_since!
    expect((await feed(`since=${encodeURIComponent(since)}&limit=5`)).launches).toEqual([])
    // Nothing arrives: an empty page after the wait.
    const started = Date.now()
    expect((await feed(`since=${encodeURIComponent(since)}&limit=5&wait=1`)).launches).toEqual([])
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    const waiting = feed(`since=${encodeURIComponent(since)}&limit=5&wait=30`)
    let answeredAt = 0
    void waiting.then(() => (answeredAt = Date.now()))
    let committedAt = 0
    for (let target = env.processor.watermark() + 10; answeredAt === 0 && target < env.processor.watermark() + 400; target += 10) {
      await env.ingestThrough(target)
      committedAt = Date.now()
      await new Promise((r) => setTimeout(r, 50))
    }
    const page = await waiting
    expect(page.launches.length).toBeGreaterThan(0)
    // What the long poll answered is what a plain poll from the same cursor answers now.
    const again = await feed(`since=${encodeURIComponent(since)}&limit=${page.launches.length}`)
    expect(page.launches.map((l) => l.token)).toEqual(again.launches.map((l) => l.token))
    expect(answeredAt - committedAt).toBeLessThan(5_000)
    // The woken answer is measured from the batch's commit to its bytes written.
    const metrics = (await env.api.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(Number(/^svc_long_poll_answer_seconds_count\{route="\/feed\/new"\} (\d+)/m.exec(metrics)?.[1] ?? 0)).toBeGreaterThanOrEqual(1)
    expect((await env.api.app.inject({ method: 'GET', url: `/feed/new?since=${encodeURIComponent(since)}&wait=31`, headers: admin })).statusCode).toBe(400)
  })
})


describe('realtime pages behind the head, kept for the served batch', () => {
  it('a cursor asked again before the next batch is the kept page; after it, the page is read at the new batch', { timeout: 60_000 }, async () => {
    const oldest = (await feed('limit=200')).launches
    expect(oldest.length).toBeGreaterThan(5)
    const url = `/feed/new?since=${encodeURIComponent(oldest[0]!.visible_at)}&limit=4`
    const page = async () => {
      const res = await env.api.app.inject({ method: 'GET', url, headers: admin })
      expect(res.statusCode).toBe(200)
      return res.json() as { data: { launches: Array<{ token: string; swaps: number }> }; measured_through_block: number }
    }
    const first = await page()
    const hits = cacheLookupCounts('feed_pages').hit
    // The kept page is answered without reading a token record again.
    const rows = cacheLookupCounts('token_rows')
    const again = await page()
    expect(again).toEqual(first)
    expect(cacheLookupCounts('feed_pages').hit).toBe(hits + 1)
    expect(cacheLookupCounts('token_rows')).toEqual(rows)
    // A batch served since: the page is read at it (the kept one is never answered past its batch).
    await env.ingestThrough(env.processor.watermark() + 20)
    const after = await page()
    expect(after.measured_through_block).toBe(env.api.watermarks.get(4663))
    expect(after.measured_through_block).toBeGreaterThan(first.measured_through_block)
    expect(cacheLookupCounts('feed_pages').hit).toBe(hits + 1)
    // And equal to what the token serving reads for that cursor now.
    const fresh = await env.api.deps.tokens.feedAfter(isoToMicros(oldest[0]!.visible_at)!, Date.now() * 1000, 4)
    expect(after.data.launches.map((l) => [l.token, l.swaps])).toEqual(fresh.tokens.map((t) => [t.token, t.swaps]))
    // An empty page at the head asked without wait is kept too; asked with wait, it is held.
    const head = encodeURIComponent((await feed('limit=1')).next_since!)
    expect((await feed(`since=${head}&limit=5`)).launches).toEqual([])
    const emptyHits = cacheLookupCounts('feed_pages').hit
    expect((await feed(`since=${head}&limit=5`)).launches).toEqual([])
    expect(cacheLookupCounts('feed_pages').hit).toBe(emptyHits + 1)
    const started = Date.now()
    expect((await feed(`since=${head}&limit=5&wait=1`)).launches).toEqual([])
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
  })
})

describe('a request never answers below the watermark it saw', () => {
  it('waits past a background sync that began for an older batch', { timeout: 60_000 }, async () => {
    // Hold the first serving_changes read after arming, so a background sync is still on its old
    // target when the next batch's watermark arrives.
    let hold: Promise<void> | undefined
    let release = () => {}
    const slow = new Proxy(env.rt.ch, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver)
        return async (args: Parameters<typeof target.query>[0]) => {
          if (hold && args.query.includes('serving_changes')) {
            const h = hold
            hold = undefined
            await h
          }
          return target.query(args)
        }
      },
    })
    const s = createTokenServing({ ch: slow, watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 1_000 })
    await s.sync()
    await new Promise((r) => setTimeout(r, 1_100)) // past the background sync's interval
    hold = new Promise<void>((r) => (release = r))
    const background = s.sync() // starts a background sync at the current watermark; it blocks on the hold
    await background
    await env.ingestThrough(env.processor.watermark() + 10)
    const waiting = s.sync()
    release()
    await waiting
    expect(s.measuredThrough()).toBe(env.api.watermarks.get(4663))
  })
})
