import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSocialServing } from '../../products/social/social-serving.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { medianOfCounts, mutualClusters, scoreCaller } from '../../products/social/caller-grade.ts'
import { catchUpCallerState } from '../../products/social/caller-refresh.ts'
import { sqlFile } from '../../sql/sql-file.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { watchedEngine } from '../setup/watched-engine.ts'

/** Callers kept by key on the simulator's own social world (posts and follows). */
let env: Embedded

beforeAll(async () => {
  env = await startEmbedded()
  // Passes run when the test says so.
  await env.grader.stop()
  await env.ingestThrough(5000)
  await env.grade()
}, 240_000)
afterAll(async () => env?.close())

const latestState = 'SELECT * FROM caller_state ORDER BY author, version DESC LIMIT 1 BY author'

/** caller_state and account_clusters against a recomputation from caller_stats and every follow snapshot. */
async function expectRecomputed(): Promise<void> {
    const [summaries, stored, snapshots] = await Promise.all([
      queryRows<{ author: string; calls: string; graded: string; early: string; momentum: string; hits: string; returns: [number[], string[]] }>(env.rt.ch, sqlFile(new URL('../../products/social/caller-summaries.sql', import.meta.url))),
      queryRows<Record<string, unknown>>(env.rt.ch, latestState),
      queryRows<{ account: string; following: string[] }>(env.rt.ch, 'SELECT account, argMax(following, observed_at) AS following FROM follow_snapshots GROUP BY account'),
    ])
    const clusters = mutualClusters(new Map(snapshots.map((s) => [s.account, new Set(s.following)])))
    expect(summaries.length).toBeGreaterThan(20)
    expect(summaries.filter((s) => Number(s.graded) > 0).length).toBeGreaterThan(0)
    expect(clusters.size).toBeGreaterThan(0)
    const byAuthor = new Map(stored.map((r) => [String(r.author), r]))
    expect([...byAuthor.keys()].sort()).toEqual(summaries.map((s) => s.author).sort())
    for (const s of summaries) {
      const g = scoreCaller({
        calls: Number(s.calls), graded: Number(s.graded), early: Number(s.early), momentum: Number(s.momentum), hits: Number(s.hits),
        medianReturn1h: medianOfCounts(s.returns[0], s.returns[1].map(Number)),
      })
      const r = byAuthor.get(s.author)!
      expect({
        calls: Number(r.calls), graded: Number(r.graded), earlyRate: r.early_rate, momentumRate: r.momentum_rate, hitRate: r.hit_rate,
        medianReturn1h: r.median_return_1h, score: r.score === null ? null : Number(r.score), grade: r.grade || null, measured: Number(r.measured) === 1,
        cluster: r.cluster || null,
      }, s.author).toEqual({ ...g, cluster: clusters.get(s.author) ?? null })
    }
    // account_clusters holds every clustered account (callers or not), and only those.
    const accounts = await queryRows<{ account: string; cluster: string }>(
      env.rt.ch,
      "SELECT account, argMax(cluster, version) AS cluster FROM account_clusters GROUP BY account HAVING cluster != '' ORDER BY account",
    )
    expect(accounts).toEqual([...clusters].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([account, cluster]) => ({ account, cluster })))
}

describe('caller_state', () => {
  it('equals a recomputation with scoreCaller over caller_stats, and clusters over every follow snapshot, for every author', expectRecomputed)

  it('is built once from caller_stats and follow_snapshots on a data dir from before it (no checkpoint)', async () => {
    for (const t of ['caller_state', 'account_clusters', 'caller_state_progress']) await env.rt.ch.command({ query: `TRUNCATE TABLE ${t}` })
    const built = await catchUpCallerState(env.rt.ch, env.rt.logger)
    expect(built?.built).toBe(true)
    expect(built!.callers.length).toBeGreaterThan(20)
    await expectRecomputed()
    // Once built, the start-up path does nothing.
    expect(await catchUpCallerState(env.rt.ch, env.rt.logger)).toBeNull()
  })

  it("the API's caller cache keeps the authors a pass did not touch and reads again the ones it did", async () => {
    let reads: string[][] = []
    // The real client, counting the keys each caller_state read asks for.
    const counting = watchedEngine(env.rt.ch, 'query', (args) => {
      const keys = (args.query_params as { keys?: string[] } | undefined)?.keys
      if (args.query.includes('FROM caller_state WHERE author IN') && keys) reads.push(keys)
    })
    const serving = createSocialServing({ ch: counting, watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 100_000 })
    const all = (await queryRows<{ author: string }>(env.rt.ch, 'SELECT DISTINCT author FROM caller_state ORDER BY author')).map((r) => r.author)
    const first = await serving.callers(all)
    expect(first.size).toBe(all.length)
    expect(reads.flat().sort()).toEqual(all)
    reads = []
    await serving.callers(all)
    expect(reads).toEqual([])

    const [{ seq: before } = { seq: '0' }] = await queryRows<{ seq: string }>(env.rt.ch, 'SELECT max(seq) AS seq FROM caller_changes')
    await env.ingestThrough(5200)
    await env.grade()
    const changed = (await queryRows<{ key: string }>(
      env.rt.ch,
      "SELECT DISTINCT key FROM caller_changes WHERE kind = 'caller' AND seq > {after:UInt64} ORDER BY key",
      { after: before },
    )).map((r) => r.key)
    expect(changed.length).toBeGreaterThan(0)
    reads = []
    const records = await serving.callers(all)
    const reread = [...new Set(reads.flat())].sort()
    expect(reread).toEqual(changed.filter((k) => all.includes(k)))
    expect(reread.length).toBeLessThan(all.length)
    // What was read again is current.
    const [fresh] = await queryRows<Record<string, unknown>>(env.rt.ch, `SELECT * FROM (${latestState}) WHERE author = {a:String}`, { a: reread[0] ?? '' })
    if (fresh) expect(records.get(String(fresh.author))!.calls).toBe(Number(fresh.calls))
    expect(serving.cachedEntries()).toBe(all.length)
  })
  it('the ranked list is read whole once, then kept from the callers each pass changes (read by key), equal to caller_state FINAL', async () => {
    const reads = { whole: 0, byKey: 0 }
    const counting = watchedEngine(env.rt.ch, 'query', (args) => {
      if (args.query.includes('FROM caller_state FINAL')) reads.whole++
      if (args.query.includes('FROM caller_state WHERE author IN')) reads.byKey++
    })
    const serving = createSocialServing({ ch: counting, watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 100_000 })
    const fresh = async () =>
      (await queryRows<{ author: string; score: number | null }>(
        env.rt.ch,
        'SELECT author, score FROM caller_state FINAL WHERE measured = 1 ORDER BY score DESC, author',
      )).map((r) => ({ handle: r.author, score: r.score === null ? null : Number(r.score) }))
    const listed = async () => (await serving.ranked()).map((r) => ({ handle: r.handle, score: r.score }))
    expect(await listed()).toEqual(await fresh())
    expect(reads.whole).toBe(1)
    let moved = 0
    for (let i = 0; i < 3; i++) {
      const before = (await listed()).map((r) => `${r.handle}:${r.score}`).join()
      await env.ingestThrough(env.processor.watermark() + 150)
      await env.grade()
      await serving.sync()
      const now = await listed()
      expect(now).toEqual(await fresh())
      if (now.map((r) => `${r.handle}:${r.score}`).join() !== before) moved++
    }
    expect(moved).toBeGreaterThan(0) // the passes changed the list
    expect(reads.whole).toBe(1)
    expect(reads.byKey).toBeGreaterThan(0)
  })
})
