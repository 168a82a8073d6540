import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import type { PushedBatch } from '../../core/records/serving-changes.ts'
import { createWatermarks } from '../../core/serving/watermarks.ts'
import { createTokenServing, type TokenServing } from '../../products/token/token-serving.ts'
import { DEPLOYER_STATE_COLUMNS } from '../../products/token/deployer-state.ts'
import { TOKEN_STATE_COLUMNS } from '../../products/token/token-state.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { watchedEngine } from '../setup/watched-engine.ts'
import { nextServingSeq } from '../../core/records/serving-changes.ts'
import { noteRepaired } from '../../pipelines/verify/note-repaired.ts'

/**
 * A served batch pushed to its followers (pipelines/process/batch-push.ts): what it carries is
 * what the engine holds for that batch (its launch_feed rows, its launched tokens' and its
 * deployers' rows), and a follower that applies pushes keeps the same answers
 * as one that reads every batch from the engine.
 */
let env: Embedded
const pushes: PushedBatch[] = []
type Versioned<K extends string> = Record<string, unknown> & { [k in K]: string } & { version: string }
const written: Array<Promise<{ push: PushedBatch; rows: Array<Versioned<'token'>>; deployers: Array<Versioned<'deployer'>> }>> = []
let reader: TokenServing

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '10' })
  // A follower told every advance without its push: it reads each batch from the engine.
  const plain = createWatermarks(env.rt.ch, [4663], 0)
  reader = createTokenServing({ ch: env.rt.ch, watermarks: plain, logger: env.rt.logger, maxEntries: 10_000 })
  env.api.watermarks.onAdvance((source) => {
    if (source !== 4663) return
    const p = env.api.watermarks.pushed(4663)
    if (p) pushes.push(p)
    // The launched tokens' rows read at once, before a later batch refreshes them (their version
    // says which batch wrote them: only the rows this batch wrote are compared).
    if (p?.launches) {
      written.push(
        queryRows<Versioned<'token'>>(
          env.rt.ch,
          `SELECT ${TOKEN_STATE_COLUMNS}, version FROM token_state WHERE chain_id = 4663 AND token IN {t:Array(String)} ORDER BY token, version DESC LIMIT 1 BY token`,
          { t: p.launchedRows.map((r) => r.token) },
        ).then(async (rows) => ({
          push: p,
          rows,
          deployers: await queryRows<Versioned<'deployer'>>(
            env.rt.ch,
            `SELECT ${DEPLOYER_STATE_COLUMNS}, version FROM deployer_state WHERE chain_id = 4663 AND deployer IN {d:Array(String)} ORDER BY deployer, version DESC LIMIT 1 BY deployer`,
            { d: p.deployerRows.map((r) => r.deployer) },
          ),
        })),
      )
    }
    plain.advance(4663, env.api.watermarks.get(4663)!, env.api.watermarks.seq(4663))
  })
  await env.ingestThrough(200)
}, 240_000)
afterAll(async () => env?.close())

describe('served batches pushed to their followers', () => {
  it('carry the launch_feed, token_state and deployer_state rows the engine holds for them', async () => {
    const launching = pushes.filter((p) => p.launches > 0)
    expect(launching.length).toBeGreaterThan(2)
    for (const p of launching) {
      const tokens = p.feed.map((f) => f.key)
      expect(tokens.sort()).toEqual(p.launchedRows.map((r) => r.token).sort())
      const feed = await queryRows<{ token: string; us: string; block: string }>(
        env.rt.ch,
        'SELECT DISTINCT token, toUnixTimestamp64Micro(visible_at) AS us, block_number AS block FROM launch_feed WHERE chain_id = 4663 AND token IN {t:Array(String)} ORDER BY us, token',
        { t: tokens },
      )
      expect(p.feed).toEqual(feed.map((r) => ({ us: Number(r.us), key: r.token, block: Number(r.block) })))
      for (const f of p.feed) expect(f.block).toBeLessThanOrEqual(p.watermark)
    }
    // The rows as that batch's refresh wrote them (its seq is their version), where no later
    // batch had refreshed them yet when read.
    let compared = 0
    let comparedDeployers = 0
    for (const { push, rows, deployers } of await Promise.all(written)) {
      expect(push.deployerRows.length).toBe(push.deployers.length)
      for (const { version, ...row } of rows) {
        if (Number(version) !== push.seq) continue
        expect(push.launchedRows.find((r) => r.token === row.token)).toEqual(row)
        compared++
      }
      for (const { version, ...row } of deployers) {
        if (Number(version) !== push.seq) continue
        expect(push.deployerRows.find((r) => r.deployer === row.deployer)).toEqual(row)
        comparedDeployers++
      }
    }
    expect(compared).toBeGreaterThan(2)
    expect(comparedDeployers).toBeGreaterThan(2)
    // Each push follows the one before it: a follower that applied one can apply the next.
    for (let i = 1; i < pushes.length; i++) expect(pushes[i]!.after).toBe(pushes[i - 1]!.seq)
  })

  it('a follower applying them answers as one reading every batch from the engine, through batches that launch', { timeout: 120_000 }, async () => {
    const kept = env.api.deps.tokens
    const applied = kept.pushesApplied()
    for (let round = 0; round < 4; round++) {
      await env.ingestThrough(env.processor.watermark() + 30)
      const nowUs = Date.now() * 1000
      const [a, b] = [await kept.feedAfter(0, nowUs, 10_000), await reader.feedAfter(0, nowUs, 10_000)]
      expect(a.tokens.map((t) => t.token)).toEqual(b.tokens.map((t) => t.token))
      expect(a.lastUs).toBe(b.lastUs)
      const newest = a.tokens.slice(-8)
      for (const t of newest) expect(await kept.token(t.token)).toEqual(await reader.token(t.token))
      const deployers = newest.map((t) => t.deployer!).filter(Boolean)
      expect(await kept.deployers(deployers)).toEqual(await reader.deployers(deployers))
    }
    expect(kept.pushesApplied()).toBeGreaterThan(applied)
    expect(reader.pushesApplied()).toBe(0)
  })

  it('carry what another writer named between two batches: a follower applies it with the push, reading no change rows', { timeout: 60_000 }, async () => {
    // A follower whose engine refuses serving_changes once armed: what it answers after the
    // batch comes from the push alone.
    let armed = false
    const refusing = watchedEngine(env.rt.ch, 'query', (a) => {
      if (armed && a.query.includes('serving_changes')) throw new Error('serving_changes read while following pushes')
    })
    const follower = createTokenServing({ ch: refusing, watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 10_000 })
    // Asked at every advance, as a busy API is: each push finds it current and is applied.
    const stop = env.api.watermarks.onAdvance(() => void follower.sync().catch(() => {}))
    try {
      // The oldest launch: the batches that follow no longer trade it, so only the repair changes its row.
      const token = (await follower.feedAfter(0, Date.now() * 1000, 1)).tokens[0]!.token
      expect((await follower.token(token))?.symbol).not.toBe('REPAIRED')
      // Its row repaired under the service and named as `svc verify --repair` names it.
      await env.rt.ch.command({
        query: `INSERT INTO token_state SELECT * REPLACE ('REPAIRED' AS symbol, {v:UInt64} AS version) FROM token_state
                WHERE chain_id = 4663 AND token = {t:String} ORDER BY version DESC LIMIT 1`,
        query_params: { t: token, v: nextServingSeq() },
      })
      await noteRepaired(env.rt.ch, 4663, 'token', [token])
      const [before, applied] = [pushes.length, follower.pushesApplied()]
      armed = true
      await env.ingestThrough(env.processor.watermark() + 10)
      const after = pushes.slice(before)
      expect(after.flatMap((p) => p.others)).toEqual([expect.objectContaining({ kind: 'token', key: token })])
      expect(after.flatMap((p) => p.tokens)).not.toContain(token)
      expect((await follower.token(token))?.symbol).toBe('REPAIRED')
      expect(follower.pushesApplied()).toBe(applied + after.length)
      armed = false
      expect(await follower.token(token)).toEqual(await reader.token(token))
    } finally {
      stop()
    }
  })

  it('a follower that answers no requests (the alert producers) reads nothing ahead: no late sync, no dropped row read again', { timeout: 90_000 }, async () => {
    // Two followers of the pushed batches, asked at every advance as the producers ask; each
    // engine read they send is noted by table.
    const readsOf = (reads: string[]) => (table: string) => reads.filter((q) => q.includes(`FROM ${table}`)).length
    const quietReads: string[] = []
    const eagerReads: string[] = []
    const quiet = createTokenServing({ ch: watchedEngine(env.rt.ch, 'query', (a) => void quietReads.push(a.query)), watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 10_000, answersRequests: false })
    const eager = createTokenServing({ ch: watchedEngine(env.rt.ch, 'query', (a) => void eagerReads.push(a.query)), watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 10_000 })
    const stop = env.api.watermarks.onAdvance(() => {
      void quiet.sync().catch(() => {})
      void eager.sync().catch(() => {})
    })
    try {
      // Both keep every deployer of the feed's launches: the batches below change some of them.
      const feed = await quiet.feedAfter(0, Date.now() * 1000, 10_000)
      const deployers = [...new Set(feed.tokens.map((t) => t.deployer).filter((d): d is string => !!d))]
      expect(deployers.length).toBeGreaterThan(5)
      await quiet.deployers(deployers)
      await eager.deployers(deployers)
      await eager.feedAfter(0, Date.now() * 1000, 1)
      quietReads.length = 0
      eagerReads.length = 0
      const applied = quiet.pushesApplied()
      await env.ingestThrough(env.processor.watermark() + 30)
      await Promise.all([quiet.sync(), eager.sync()])
      // Past LATE_SYNC_MS since the last read sync: a request now would start one (the eager's does).
      await new Promise((r) => setTimeout(r, 1_100))
      await Promise.all([quiet.feedAfter(0, Date.now() * 1000, 1), eager.feedAfter(0, Date.now() * 1000, 1)])
      await new Promise((r) => setTimeout(r, 300))
      await eager.sync()
      expect(quiet.pushesApplied()).toBeGreaterThan(applied)
      const quietRead = readsOf(quietReads)
      const eagerRead = readsOf(eagerReads)
      // The eager follower read the deployers the batches changed again at once, and the change
      // rows between batches; the quiet one read neither.
      expect(eagerRead('deployer_state')).toBeGreaterThan(0)
      expect(eagerRead('serving_changes')).toBeGreaterThan(0)
      expect(quietRead('serving_changes')).toBe(0)
      expect(quietRead('deployer_state') + quietRead('token_state')).toBe(0)
      // What it reads when asked is the same.
      expect(await quiet.deployers(deployers)).toEqual(await reader.deployers(deployers))
    } finally {
      stop()
    }
  })
})
