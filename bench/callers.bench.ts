import { queryRows } from '../core/clickhouse.ts'
import { medianOfCounts, mutualClusters, scoreCaller } from '../products/social/caller-grade.ts'
import { sqlFile } from '../sql/sql-file.ts'
import { catchUpCallerState, refreshCallerState } from '../products/social/caller-refresh.ts'
import { createSocialServing } from '../products/social/social-serving.ts'
import { startEmbedded } from '../test/setup/embedded.ts'
import type { BenchResult } from './result.ts'

/** Heap in use after a collection when node runs with --expose-gc (otherwise a rough figure). */
const heap = () => {
  globalThis.gc?.()
  return process.memoryUsage().heapUsed
}

/**
 * Callers served by key against the social book this replaced (every caller and every follow
 * snapshot loaded per data version), on CALLERS synthetic callers (BENCH_CALLERS, default 100 000).
 */
export async function benchCallers(CALLERS = Number(process.env.BENCH_CALLERS ?? 100_000)): Promise<BenchResult> {
  const env = await startEmbedded({ LOG_LEVEL: 'warn' }, { social: false })
  await env.grader.stop()
  await env.ingestThrough(50)
  const ch = env.rt.ch
  await ch.command({ query: `INSERT INTO caller_stats SELECT concat('acct_', toString(number % ${CALLERS})) AS author, uniqExactState(toString(number)), sum(toInt64(number % 3 = 0)), sum(toInt64(number % 5 = 0)), sum(toInt64(number % 7 = 0)), sum(toInt64(number % 2 = 0)), sumMapState([toFloat64((number % 200) / 100 - 1)], [toInt64(number % 3 = 0)]) FROM numbers(${CALLERS * 12}) GROUP BY author` })
  // A follow graph: 20% of callers tracked, each following 50 accounts, some mutual.
  await ch.command({ query: `INSERT INTO follow_snapshots SELECT concat('acct_', toString(number)), now(), arrayMap(i -> concat('acct_', toString((number + i * 7) % ${CALLERS})), range(50)), 0 FROM numbers(${CALLERS / 5})` })
  await ch.command({ query: `INSERT INTO follow_snapshots SELECT concat('acct_', toString(number + 7)), now() + 1, [concat('acct_', toString(number))], 0 FROM numbers(${CALLERS / 50})` })

  // The old social book: every caller's summary and every follow snapshot, per data version.
  let h0 = heap()
  let t = performance.now()
  const [summaries, snapshots] = await Promise.all([
    queryRows<{ author: string; calls: string; graded: string; early: string; momentum: string; hits: string; returns: [number[], string[]] }>(ch, sqlFile(new URL('../products/social/caller-summaries.sql', import.meta.url))),
    queryRows<{ account: string; following: string[] }>(ch, 'SELECT account, argMax(following, observed_at) AS following FROM follow_snapshots GROUP BY account'),
  ])
  const clusters = mutualClusters(new Map(snapshots.map((s) => [s.account, new Set(s.following)])))
  const book = new Map<string, unknown>()
  for (const s of summaries) book.set(s.author, { ...scoreCaller({ calls: Number(s.calls), graded: Number(s.graded), early: Number(s.early), momentum: Number(s.momentum), hits: Number(s.hits), medianReturn1h: medianOfCounts(s.returns[0], s.returns[1].map(Number)) }), cluster: clusters.get(s.author) ?? null })
  const bookMs = performance.now() - t
  const bookHeap = heap() - h0
  const bookSize = book.size
  summaries.length = 0; snapshots.length = 0; book.clear(); clusters.clear()

  t = performance.now()
  await catchUpCallerState(ch, env.rt.logger)
  const buildMs = performance.now() - t

  await new Promise((r) => setTimeout(r, 11_000))
  await refreshCallerState(ch)
  // A pass after a few authors' calls: what a social version costs now.
  await ch.command({ query: `INSERT INTO calls (author, token, called_at, captured_at) SELECT concat('acct_', toString(number * 997 % ${CALLERS})), 'newtok', now(), now() FROM numbers(50)` })
  t = performance.now()
  const pass = await refreshCallerState(ch)
  const passMs = performance.now() - t

  h0 = heap()
  const serving = createSocialServing({ ch, watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 10_000 })
  env.api.watermarks.socialAdvanced(1)
  t = performance.now()
  await serving.callers(Array.from({ length: 200 }, (_, i) => `acct_${i * 13}`))
  const by200 = performance.now() - t
  t = performance.now()
  const ranked = await serving.ranked()
  const rankedMs = performance.now() - t
  t = performance.now()
  await serving.callers(Array.from({ length: 200 }, (_, i) => `acct_${i * 13}`))
  const cached = performance.now() - t
  t = performance.now()
  const sc = await serving.signalCalls({ minEarlyRate: 0.3, minGraded: 4, minRankScore: 0.3, includeCoordinated: false }, 0, 1000)
  const sigMs = performance.now() - t
  // Held by the serving: 200 cached records and the kept ranked list (the /callers answer).
  const servingHeap = heap() - h0
  await env.close()
  return {
    name: `callers: a social data version with ${CALLERS.toLocaleString('en-US')} callers, 50 of them changed (caller_state refresh by key)`,
    baseline: 'the social book it replaced: every caller summary and follow snapshot loaded and scored, per data version',
    ours: { value: Math.round(passMs), unit: 'ms' },
    base: { value: Math.round(bookMs), unit: 'ms' },
    ratio: bookMs / passMs,
    notes:
      `book held ${(bookHeap / 1e6).toFixed(1)} MB for ${bookSize} callers; the serving holds ${(servingHeap / 1e6).toFixed(1)} MB (200 cached records and the ranked list); ` +
      `${pass.callers.length} records changed; 200 callers by key ${Math.round(by200)} ms (cached ${cached.toFixed(2)} ms); /callers ranked list ${Math.round(rankedMs)} ms read whole once, then kept from the changed callers (${ranked.length} rows); ` +
      `signal calls ${Math.round(sigMs)} ms (${sc.length} rows); one-time build ${Math.round(buildMs)} ms`,
  }
}
