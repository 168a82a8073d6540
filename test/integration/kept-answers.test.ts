import { AsyncLocalStorage } from 'node:async_hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { verdictSignals } from '../../products/verdict/verdict-signals.ts'
import { keptTokenVerdictSignals, tokenVerdictSignals } from '../../products/verdict/verdict-signals-serving.ts'
import { agentFeatures, agentFeaturesFresh } from '../../products/features/features-serving.ts'
import { readClocks, tokenSocial } from '../../products/social/token-social.ts'
import { firstMentions, tgRecords } from '../../products/social/social-queries.ts'
import { cacheLookupCounts } from '../../core/metrics.ts'
import { statsEndpoint } from '../../products/token/stats-endpoint.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { until } from '../setup/until.ts'
import { TOPICS } from '../../core/bus/topics.ts'
import { claimRow } from '../../products/wallet/leaderboard-claim.ts'
import type { BusRecord } from '../../core/bus/types.ts'
import { watchedEngine } from '../setup/watched-engine.ts'
import { createSocialServing } from '../../products/social/social-serving.ts'

/**
 * The verdict's signals and the agent feature rows are kept per token in the API
 * (products/verdict/verdict-signals-serving.ts, products/features/features-serving.ts) and dropped only by the
 * changes that name the token. This holds them against a fresh recomputation from the engine
 * after each of a series of random steps of the simulated world (batches, social posts and room
 * sightings, graded calls, a structure scan), and so are the kept social parts of tokens and the
 * measured callers' calls: the kept value is never the source of a wrong figure.
 */
let env: Embedded
/** Tokens held against a fresh recomputation at each step (the most mentioned launches first). */
const KEYS = 25

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '60' })
}, 180_000)
afterAll(async () => env?.close())

/** A deterministic stream of step sizes (no flake from a random seed). */
function* steps(seed: number): Generator<number> {
  let x = seed
  for (;;) {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    yield 40 + (x % 160)
  }
}

/** Launched tokens: the most mentioned first (their callers are graded), then others by address. */
async function launchedTokens(limit: number): Promise<string[]> {
  const rows = await queryRows<{ token: string }>(
    env.rt.ch,
    `SELECT l.token AS token FROM (SELECT DISTINCT token FROM launches WHERE chain_id = 4663) AS l
     LEFT JOIN (SELECT token, count() AS n FROM mentions GROUP BY token) AS m ON m.token = l.token
     ORDER BY m.n DESC, l.token LIMIT {n:UInt32}`,
    { n: limit },
  )
  return rows.map((r) => r.token)
}

const FILTERS = [
  { minGraded: 4, minEarlyRate: 0.5, minRankScore: 0.3, includeCoordinated: false },
  { minGraded: 0, minEarlyRate: 0, minRankScore: 0, includeCoordinated: true },
]

/**
 * The engine and watermarks of a keeper under test: its reads matching `counts` told apart by
 * who started them, told by the async context they ran in: an advance of the watermarks (a read
 * ahead: `ahead`) or a request run through `request` (its own: `own`). What neither started (a
 * catch-up in the background) is in neither count.
 */
function readsByAdvance(counts: (query: string) => boolean) {
  const started = new AsyncLocalStorage<'advance' | 'request'>()
  const reads = {
    ahead: 0,
    own: 0,
    ch: watchedEngine(env.api.deps.ch, 'query', (args) => {
      if (!counts(args.query)) return
      const by = started.getStore()
      if (by === 'advance') reads.ahead++
      else if (by === 'request') reads.own++
    }),
    watermarks: Object.create(env.api.deps.watermarks) as typeof env.api.deps.watermarks,
    request: <T>(ask: () => Promise<T>): Promise<T> => started.run('request', ask),
  }
  // What a listener starts, through every await after it, runs in the advance's context.
  reads.watermarks.onAdvance = (listener) => env.api.deps.watermarks.onAdvance((source) => started.run('advance', () => listener(source)))
  return reads
}

/** The measured callers' calls as one statement computes them: the reference for the kept merge. */
async function freshSignalCalls(f: (typeof FILTERS)[number]) {
  const rows = await queryRows<{ author: string; token: string; called_at: string; captured_at: string }>(
    env.rt.ch,
    `SELECT author, token, toUnixTimestamp(min(called_at)) AS called_at, toUnixTimestamp(min(captured_at)) AS captured_at FROM calls
     WHERE author IN (SELECT author FROM caller_state FINAL WHERE measured = 1 AND graded >= {g:Int64} AND early_rate >= {e:Float64}
                      AND ifNull(score, 0) / 100 >= {r:Float64} AND ({c:UInt8} = 1 OR cluster = ''))
     GROUP BY author, token ORDER BY captured_at, author, token`,
    { g: f.minGraded, e: f.minEarlyRate, r: f.minRankScore, c: f.includeCoordinated ? 1 : 0 },
  )
  return rows.map((r) => ({ author: r.author, token: r.token, calledAt: Number(r.called_at), capturedAt: Number(r.captured_at) }))
}

/** Fresh signals of every token, once the pipelines stopped moving (two equal reads in a row). */
async function settledFresh(tokens: string[]): Promise<Map<string, unknown>> {
  const read = async () => {
    const out = new Map<string, unknown>()
    for (const token of tokens) {
      const t = await env.api.deps.tokens.token(token)
      if (t) out.set(token, { verdict: await verdictSignals(env.rt.ch, 4663, t), features: withoutClock(await agentFeaturesFresh(env.api.deps, token)) })
    }
    out.set('rooms', Object.fromEntries(await tgRecords(env.rt.ch, tokens)))
    out.set('first mentions', Object.fromEntries(await firstMentions(env.rt.ch, tokens)))
    for (const [i, f] of FILTERS.entries()) out.set(`signal calls ${i}`, await freshSignalCalls(f))
    return out
  }
  let last = await read()
  return until('the pipelines to settle', async () => {
    await new Promise((r) => setTimeout(r, 700))
    const now = await read()
    const same = JSON.stringify([...now]) === JSON.stringify([...last])
    last = now
    return same ? now : undefined
  }, 60_000)
}

let postSeq = 0
/**
 * Accounts made measured (four calls, each a second before a swap an hour or more before the
 * chain's end, so each is graded) that then call `token`: its kept callers part must change.
 */
async function measuredCallersCall(token: string): Promise<void> {
  const [end] = await queryRows<{ t: string }>(env.rt.ch, 'SELECT toUnixTimestamp(max(timestamp)) AS t FROM chain_blocks')
  const training = await queryRows<{ token: string; t: string }>(
    env.rt.ch,
    `SELECT token, toUnixTimestamp(min(block_time)) AS t FROM swaps WHERE token != {x:String} AND token_in + token_out > 0 AND toUnixTimestamp(block_time) <= {last:UInt32}
     GROUP BY token ORDER BY count() DESC, token LIMIT 4`,
    { x: token, last: Number(end!.t) - 3700 },
  )
  expect(training).toHaveLength(4)
  const post = (author: string, at: number, text: string) => ({ id: `kv${postSeq++}`, author, posted_at: at, captured_at: at + 5, text, links: [] })
  const authors = ['kept_m0', 'kept_m1', 'kept_m2']
  const posts = [...authors.flatMap((a) => training.map((tr) => post(a, Number(tr.t) - 1, `aping ${tr.token}`))), ...authors.map((a) => post(a, Number(end!.t) - 10, `${token} next`))]
  await env.rt.bus.publish(TOPICS.socialPosts, posts.map((p): BusRecord => ({ key: null, value: JSON.stringify(p) })))
  await until('the posts stored', async () => {
    const [r] = await queryRows<{ n: string }>(env.rt.ch, "SELECT count() AS n FROM mentions WHERE startsWith(post_id, 'kv')")
    return Number(r!.n) >= posts.length ? true : undefined
  })
  await env.grade()
}

/** Tokens whose verdict signals memory gave without a promise (keptTokenVerdictSignals), each the object the read gave. */
let keptAtOnce = 0

async function kept(tokens: string[]): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>()
  for (const token of tokens) {
    const t = await env.api.deps.tokens.token(token)
    if (!t) continue
    const verdict = await tokenVerdictSignals(env.api.deps, t)
    // Memory's answer, when it gives one, is the very object the read gives (the verdict's `kept`).
    const atOnce = keptTokenVerdictSignals(env.api.deps, t)
    if (atOnce !== undefined) {
      expect(atOnce, token).toBe(verdict)
      keptAtOnce++
    }
    out.set(token, { verdict, features: withoutClock(await agentFeatures(env.api.deps, token)) })
  }
  out.set('rooms', Object.fromEntries(await tokenSocial(env.api.deps).rooms(tokens)))
  out.set('first mentions', Object.fromEntries(await tokenSocial(env.api.deps).firstMentions(tokens)))
  for (const [i, f] of FILTERS.entries()) out.set(`signal calls ${i}`, await env.api.deps.social.signalCalls(f, 0, 1_000_000))
  return out
}

/** A feature row less the time it was generated at (the one field that is not data). */
function withoutClock(row: Awaited<ReturnType<typeof agentFeatures>>) {
  const { generated_at: _, ...coverage } = row.data.coverage
  return { ...row, data: { ...row.data, coverage } }
}

describe('verdict signals kept per token', () => {
  it('equal a fresh recomputation after every step: batches, mentions, grades and a structure scan', { timeout: 420_000 }, async () => {
    const sizes = steps(4663)
    // Past an hour of chain time (2 s blocks), so that calls are graded and callers measured.
    let head = 2400
    await env.ingestThrough(head)
    let tokens = await launchedTokens(KEYS)
    expect(tokens.length).toBeGreaterThan(10)
    await kept(tokens)
    const changed = new Set<string>()
    let previous = new Map<string, unknown>()
    for (let step = 0; step < 4; step++) {
      head += sizes.next().value
      await env.ingestThrough(head)
      await env.grade()
      if (step === 1) await measuredCallersCall(tokens[1]!)
      if (step === 2) {
        // A structure scan of a token whose kept verdict already holds "never scanned".
        const token = tokens[0]!
        const job = await env.api.deps.scans.request('structure', token, 'request')
        await until('the structure scan', async () => {
          const rows = await queryRows<{ state: string }>(env.rt.ch, 'SELECT state FROM scan_jobs WHERE job_id = {id:String}', { id: job.id })
          return rows.some((r) => r.state === 'done') ? true : undefined
        }, 60_000)
      }
      tokens = await launchedTokens(KEYS)
      const fresh = await settledFresh(tokens)
      // A scan stored after the last batch is named to the API within a second (its sync between batches).
      const k = await until('the kept signals to catch up', async () => {
        const now = await kept(tokens)
        return JSON.stringify([...now]) === JSON.stringify([...fresh]) ? now : undefined
      }, 10_000).catch(() => kept(tokens))
      for (const token of [...fresh.keys()]) {
        expect(k.get(token), `${token} after step ${step}`).toEqual(fresh.get(token))
        if (previous.has(token) && JSON.stringify(previous.get(token)) !== JSON.stringify(fresh.get(token))) changed.add(token)
      }
      previous = fresh
    }
    // The steps changed kept values (else equality would prove nothing), including each part.
    expect(changed.size).toBeGreaterThan(0)
    expect(keptAtOnce).toBeGreaterThan(KEYS)
    expect((previous.get('signal calls 1') as unknown[]).length).toBeGreaterThan(0)
    expect(Object.keys(previous.get('rooms') as object).length).toBeGreaterThan(0)
    const all = tokens.map((t) => previous.get(t)).filter(Boolean).map((v) => (v as { verdict: { measuredCallers: { count: number }; structure: string | null; lp: unknown } }).verdict)
    expect(all.some((s) => s.measuredCallers.count > 0)).toBe(true)
    expect(all.some((s) => s.structure !== null)).toBe(true)
    expect(all.some((s) => s.lp !== null)).toBe(true)
  })

  it('a repeated verdict or feature row is answered from memory: no engine read, and the same answer, until its token changes', async () => {
    const [token] = await launchedTokens(1)
    const t = (await env.api.deps.tokens.token(token!))!
    const first = await tokenVerdictSignals(env.api.deps, t)
    const caches = ['verdict_chain', 'verdict_scans', 'verdict_mention_authors']
    const before = caches.map(cacheLookupCounts)
    // The same signals object each time: the answer made from it is kept with it (verdict-endpoint.ts).
    for (let i = 0; i < 20; i++) expect(await tokenVerdictSignals(env.api.deps, t)).toBe(first)
    // So is a feature row, made once (with its generated_at) while nothing it is made of moves.
    // (Asked twice between batches: a batch moves the watermark the row states.)
    let compared = false
    for (let i = 0; i < 5 && !compared; i++) {
      const at = env.api.deps.tokens.measuredThrough()
      const row = await agentFeatures(env.api.deps, token!)
      const again = await agentFeatures(env.api.deps, token!)
      if (env.api.deps.tokens.measuredThrough() !== at) continue
      expect(again).toBe(row)
      compared = true
    }
    expect(compared).toBe(true)
    caches.forEach((cache, i) => {
      const after = cacheLookupCounts(cache)
      expect(after.miss, cache).toBe(before[i]!.miss)
      expect(after.hit - before[i]!.hit, cache).toBe(20)
    })
  })

  it('/stats is made, and written to JSON, once per pair of chain totals', async () => {
    const stats = () => statsEndpoint.handler!({ deps: env.api.deps } as never) as Promise<{ data: unknown }>
    let compared = false
    for (let i = 0; i < 5 && !compared; i++) {
      const at = [env.api.deps.watermarks.version(4663), env.api.deps.watermarks.version(5042)].join()
      const [a, b] = [await stats(), await stats()]
      if ([env.api.deps.watermarks.version(4663), env.api.deps.watermarks.version(5042)].join() !== at) continue
      expect(b.data).toBe(a.data)
      compared = true
    }
    expect(compared).toBe(true)
  })

  it('/stats, while it is asked, is read as soon as its chain advances: the first request after a batch waits on no read of its own', async () => {
    let reads = 0
    const counted = watchedEngine(env.api.deps.ch, 'query', (args) => {
      if (args.query.includes('chain_totals')) reads++
    })
    // A keeper of its own (followers are kept per watermarks object) whose reads are counted.
    const deps = { ...env.api.deps, ch: counted, watermarks: Object.create(env.api.deps.watermarks) as typeof env.api.deps.watermarks }
    const stats = () => statsEndpoint.handler!({ deps } as never) as Promise<{ data: { chains: Array<{ measured_through_block: number | null }> } }>
    await stats()
    for (let i = 0; i < 3; i++) {
      await env.ingestThrough(env.api.watermarks.get(4663)! + 10)
      const before = reads
      const { data } = await stats()
      expect(reads).toBe(before)
      expect(data.chains[0]!.measured_through_block).toBe(env.api.watermarks.get(4663))
    }
  })

  it('/agent/features, while asked, has its clocks and roster read as soon as the data moves: the first ask after a batch reads neither', async () => {
    const reads = readsByAdvance((query) => query.includes('max(hour)') || query.includes('FROM leaderboard_claims ORDER BY claimed_at DESC'))
    // Keepers of their own (kept per token and social serving objects) whose reads are counted.
    const deps = {
      ...env.api.deps, ch: reads.ch, watermarks: reads.watermarks,
      tokens: Object.create(env.api.deps.tokens) as typeof env.api.deps.tokens, social: Object.create(env.api.deps.social) as typeof env.api.deps.social,
    }
    await env.ingestThrough(Math.max(env.api.watermarks.get(4663) ?? 0, 300))
    const [token] = await launchedTokens(1)
    await reads.request(() => agentFeatures(deps, token!))
    expect(reads.own).toBeGreaterThanOrEqual(2) // the first ask reads both
    for (let i = 0; i < 3; i++) {
      const [ahead, own] = [reads.ahead, reads.own]
      await env.ingestThrough(env.api.watermarks.get(4663)! + 10)
      expect(reads.ahead).toBeGreaterThan(ahead) // read at the advances
      const row = await reads.request(() => agentFeatures(deps, token!))
      expect(reads.own).toBe(own)
      expect(row.measured_through_block).toBe(env.api.deps.tokens.measuredThrough())
    }
  })

  it('the social clocks are read whole once, then over the tokens each batch names, and equal a whole read after every batch', async () => {
    const whole = { corpus: 0, firehose: 0 }
    let keyed = 0
    const counted = watchedEngine(env.api.deps.ch, 'query', (args) => {
      if (/FROM (tg_sightings|mention_hourly)/.test(args.query) && args.query.includes('max(')) {
        if (args.query.includes('WHERE token IN')) keyed++
        else if (args.query.includes('tg_sightings')) whole.corpus++
        else whole.firehose++
      }
    })
    // A social serving and keeper of their own, over the same engine, whose reads are counted.
    const social = createSocialServing({ ch: counted, watermarks: env.api.deps.watermarks, logger: env.api.deps.logger, maxEntries: 1_000 })
    const clocks = tokenSocial({ ch: counted, social, watermarks: env.api.deps.watermarks })
    expect(await clocks.clocks()).toEqual(await readClocks(env.rt.ch))
    expect(whole).toEqual({ corpus: 1, firehose: 1 })
    const seen = new Set<string>()
    for (let i = 0; i < 3; i++) {
      await env.ingestThrough(env.api.watermarks.get(4663)! + 200)
      // Social rows of the batch may still be landing: compared once the whole read stands still.
      const now = await until('the kept clocks equal to a whole read', async () => {
        const [kept, fresh] = [await clocks.clocks(), await readClocks(env.rt.ch)]
        return JSON.stringify(kept) === JSON.stringify(fresh) ? kept : undefined
      })
      seen.add(JSON.stringify(now))
    }
    expect(seen.size).toBeGreaterThan(1) // the clocks moved
    expect(keyed).toBeGreaterThan(0)
    expect(whole).toEqual({ corpus: 1, firehose: 1 })
  })

  it('/signals/calls, while asked, has its lists merged again as soon as the data moves: the first poll after a batch reads nothing', async () => {
    const reads = readsByAdvance((query) => /caller_state|caller_changes|FROM calls/.test(query))
    // A social serving of its own, over the same engine, whose reads are counted.
    const social = createSocialServing({ ch: reads.ch, watermarks: reads.watermarks, logger: env.api.deps.logger, maxEntries: 1_000 })
    await env.ingestThrough(Math.max(env.api.watermarks.get(4663) ?? 0, 300))
    const first = await reads.request(() => social.signalCalls(FILTERS[0]!, 0, 1_000_000))
    expect(reads.own).toBeGreaterThan(0)
    for (let i = 0; i < 3; i++) {
      const [ahead, own] = [reads.ahead, reads.own]
      await env.ingestThrough(env.api.watermarks.get(4663)! + 10)
      await until('the read ahead done', async () => {
        const at = reads.ahead
        await new Promise((r) => setTimeout(r, 100))
        return reads.ahead > ahead && reads.ahead === at ? true : undefined
      })
      // Past the between-versions catch-up's interval (as on a busy machine): the poll starts it in
      // the background and does not wait on it.
      if (i === 1) await new Promise((r) => setTimeout(r, 1_100))
      const calls = await reads.request(() => social.signalCalls(FILTERS[0]!, 0, 1_000_000))
      expect(reads.own).toBe(own)
      expect(calls).toEqual(await freshSignalCalls(FILTERS[0]!))
      expect(calls.length).toBeGreaterThanOrEqual(first.length)
    }
  })

  it('the asked tokens a batch changes are read again together, before anyone asks: about one read per batch, not one per token; a feature row\'s chain part only when the batch can move it', { timeout: 300_000 }, async () => {
    // The chain part of a verdict reads pool_providers, that of a feature row pool_first_mint.
    const reads = { verdict: 0, features: 0 }
    const counted = watchedEngine(env.api.deps.ch, 'query', (args) => {
      if (args.query.includes('pool_providers')) reads.verdict++
      if (args.query.includes('pool_first_mint')) reads.features++
    })
    // Keepers of their own (kept per token serving object) whose engine reads are counted.
    const deps = { ...env.api.deps, ch: counted, tokens: Object.create(env.api.deps.tokens) as typeof env.api.deps.tokens }
    await env.ingestThrough(Math.max(env.api.watermarks.get(4663) ?? 0, 300))
    const tokens = await launchedTokens(KEYS * 4)
    const records = await env.api.deps.tokens.tokens(tokens)
    const askAll = async () => {
      const rows = new Map<string, Awaited<ReturnType<typeof agentFeatures>>>()
      for (const t of (await env.api.deps.tokens.tokens(tokens)).values()) {
        await tokenVerdictSignals(deps, t)
        rows.set(t.token, await agentFeatures(deps, t.token))
      }
      return rows
    }
    await askAll()
    expect(reads).toEqual({ verdict: records.size, features: records.size }) // asked one by one: one read each
    const asked = { ...reads }

    /** The batches since `served` and their changes of the asked tokens, once the background reads are done. */
    const ingestAndSettle = async (served: number) => {
      // Counted from before the batches: their background reads may be done by the time they are counted.
      const before = { ...reads }
      await env.ingestThrough(served + 150)
      await env.api.deps.tokens.sync()
      const [changes] = await queryRows<{ n: string; batches: string }>(
        env.rt.ch,
        `SELECT count() AS n, uniqExact(seq) AS batches FROM serving_changes
         WHERE chain_id = 4663 AND kind = 'token' AND key IN {tokens:Array(String)} AND watermark > {served:UInt64}`,
        { tokens: [...records.keys()], served },
      )
      const n = Number(changes!.n)
      await until('the background reads done', async () => {
        const at = reads.verdict + reads.features
        await new Promise((r) => setTimeout(r, 500))
        return (n === 0 || reads.verdict > before.verdict) && reads.verdict + reads.features === at ? true : undefined
      })
      return { n, batches: Number(changes!.batches) }
    }

    const first = await ingestAndSettle(env.api.watermarks.get(4663)!)
    // Each change of an asked token drops its verdict's chain part: one read each, without the batched refresh.
    expect(first.n).toBeGreaterThan(2 * first.batches)
    // About one read per served batch that changed them (a sync may split a large batch's
    // changes in two), never one per token.
    console.log(`chain-part reads (verdict, features): ${reads.verdict - asked.verdict}, ${reads.features - asked.features} for ${first.n} changes of asked tokens in ${first.batches} batches`)
    expect(reads.verdict - asked.verdict).toBeLessThanOrEqual(2 * first.batches)
    expect(reads.features - asked.features).toBeLessThanOrEqual(2 * first.batches)
    // The launched tokens' first liquidity is minted: their changes drop the verdict's chain part,
    // not the feature row's (which is read again only for a token still without it).
    expect(reads.features - asked.features).toBeLessThan(reads.verdict - asked.verdict)
    let after = { ...reads }
    await askAll()
    expect(reads).toEqual(after) // every asked answer found kept

    // No roster in this world yet, so a feature row's chain part moves only with the first
    // liquidity of its launch pool, frozen once minted: a changed token that has it was not read
    // again (0 reads above unless a changed token had none). With a roster stored, the rows (kept
    // through the changes that could not move them) equal a fresh recomputation 300 blocks later.
    // Every trader seen so far (more than a published leaderboard may hold: stored behind the
    // processor's back), so any of them trading an asked token for the first time moves its count.
    const traders = await queryRows<{ trader: string }>(env.rt.ch, 'SELECT DISTINCT trader FROM swaps WHERE chain_id = 4663 ORDER BY trader')
    // Stored as the claims processor stores them (this world runs no claims consumer).
    const claims = traders.map((r, i) => ({ source: 'kept-answers', wallet: r.trader, rank: i + 1, claimed_pnl_usd_30d: 0, claimed_at: '2030-01-01T00:00:00Z' }))
    await env.rt.ch.insert({ table: 'leaderboard_claims', values: claims.map(claimRow), format: 'JSONEachRow' })
    await env.ingestThrough(env.api.watermarks.get(4663)! + 2)
    await env.api.deps.tokens.sync()
    const withRoster = await askAll()
    await env.ingestThrough(env.api.watermarks.get(4663)! + 300)
    await env.api.deps.tokens.sync()
    const plain = (m: Map<string, Awaited<ReturnType<typeof agentFeatures>>>) => JSON.stringify([...m].map(([t, r]) => [t, withoutClock(r)]))
    const fresh = new Map<string, Awaited<ReturnType<typeof agentFeatures>>>()
    for (const token of withRoster.keys()) fresh.set(token, await agentFeaturesFresh(env.api.deps, token))
    const rows = await until('the kept rows to catch up', async () => {
      const now = await askAll()
      return plain(now) === plain(fresh) ? now : undefined
    }, 10_000).catch(() => askAll())
    for (const token of rows.keys()) {
      expect(withoutClock(rows.get(token)!), token).toEqual(withoutClock(fresh.get(token)!))
      const count = (r: Awaited<ReturnType<typeof agentFeatures>>) => r.data.observed.roster_traders
      expect(count(rows.get(token)!)).not.toBeNull()
    }
    expect(rows.size).toBe(withRoster.size)
    after = { ...reads }
    await askAll()
    expect(reads).toEqual(after)
  })
})
