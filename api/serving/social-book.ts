import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { medianOfCounts, mutualClusters, scoreCaller, type CallerGrade } from '../../core/domain/caller-grade.ts'
import type { Logger } from '../../core/logger.ts'
import { namedQuery } from '../../sql/queries.ts'
import type { Watermarks } from './watermarks.ts'

export interface CallRecord {
  author: string
  token: string
  postId: string
  calledAt: number
  capturedAt: number
  /** 1 h forward return, null until graded. */
  return1h: number | null
  /** The token's run (becoming real), unix seconds, null without one. */
  runAt: number | null
  /** isEarlyCall(calledAt, runAt) (core/domain/caller-grade.ts). */
  early: boolean
}

export interface CallerRecord extends CallerGrade {
  handle: string
  /** Mutual-follow cluster id (its smallest handle), or null for an independent account. */
  cluster: string | null
}

export interface MirrorRecord {
  chain: 'solana' | 'base'
  handle: string
  calls: number
  early_rate: number
  momentum_rate: number
  median_return_1h: number
  score: number
  updated_at: string
}

/**
 * Every caller's graded record, the mutual-follow clusters, mirrors and watched principals,
 * loaded once per (chain watermark, social version). Call lists are read per caller on demand
 * (callsOf in social-queries.ts).
 */
export interface SocialBook {
  callers: Map<string, CallerRecord>
  clusters: Map<string, string>
  mirrors: MirrorRecord[]
  watched: Set<string>
  /** Unix seconds of the newest chain block when the book was loaded. */
  chainTime: number
}

/**
 * Access paths: the newest block from chain_blocks by key (read backwards); caller summaries
 * from caller_stats (one row per caller, maintained from stored grades: migration 012); follow
 * snapshots and mirrors as before. Nothing here reads swaps or regrades a call.
 */
async function loadSocialBook(ch: ClickHouseClient): Promise<SocialBook> {
  const [t] = await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(timestamp) AS t FROM chain_blocks WHERE chain_id = 4663 ORDER BY number DESC LIMIT 1')
  const chainTime = Number(t?.t ?? 0)
  const [summaries, snapshots, mirrors] = await Promise.all([
    queryRows<{ author: string; calls: string; graded: string; early: string; momentum: string; hits: string; returns: [number[], string[]] }>(ch, namedQuery('caller_summaries')),
    queryRows<{ account: string; following: string[]; watched: number }>(
      ch,
      'SELECT account, argMax(following, observed_at) AS following, argMax(watched, observed_at) AS watched FROM follow_snapshots GROUP BY account',
    ),
    queryRows<MirrorRecord>(ch, 'SELECT chain, handle, calls, early_rate, momentum_rate, median_return_1h, score, updated_at FROM caller_mirrors FINAL'),
  ])
  const clusters = mutualClusters(new Map(snapshots.map((s) => [s.account, new Set(s.following)])))
  const callers = new Map<string, CallerRecord>()
  for (const s of summaries) {
    const grade = scoreCaller({
      calls: Number(s.calls),
      graded: Number(s.graded),
      early: Number(s.early),
      momentum: Number(s.momentum),
      hits: Number(s.hits),
      medianReturn1h: medianOfCounts(s.returns[0], s.returns[1].map(Number)),
    })
    callers.set(s.author, { handle: s.author, ...grade, cluster: clusters.get(s.author) ?? null })
  }
  return {
    callers,
    clusters,
    mirrors: mirrors.map((m) => ({ ...m, calls: Number(m.calls), score: Number(m.score) })),
    watched: new Set(snapshots.filter((s) => s.watched).map((s) => s.account)),
    chainTime,
  }
}

export interface SocialBookSource {
  /** The book of the current versions, waiting briefly for a reload (see FRESH_WAIT_MS). */
  get(): Promise<SocialBook>
  /** The newest book there is; never starts a reload (the first load is awaited). */
  peek(): Promise<SocialBook>
}

/** How long a request waits for the book of new data before the previous one is served (default). */
const FRESH_WAIT_MS = 500

/**
 * Serves the book of the current versions. A reload runs in the background, one at a time;
 * while it runs, requests wait at most FRESH_WAIT_MS and then get the previous book.
 */
export function createSocialBookSource(deps: { ch: ClickHouseClient; watermarks: Watermarks; logger: Logger }, opts: { freshWaitMs?: number } = {}): SocialBookSource {
  const freshWaitMs = opts.freshWaitMs ?? FRESH_WAIT_MS
  let current: { version: string; book: SocialBook } | undefined
  let loading: { version: string; book: Promise<SocialBook> } | undefined
  const versionNow = () => `${deps.watermarks.version(4663)}/${deps.watermarks.socialVersion()}`

  let lastLoadMs = 0
  let lastLoadEnded = 0

  function reload(version: string): Promise<SocialBook> {
    if (loading) return loading.book
    // Keep the engine mostly free for requests: the next load starts only after four times the
    // last one's duration has passed (loads read per-caller summaries, so this is rarely felt).
    if (current && Date.now() - lastLoadEnded < 4 * lastLoadMs) return Promise.resolve(current.book)
    const started = Date.now()
    const book = loadSocialBook(deps.ch)
    loading = { version, book }
    book.then(
      (b) => {
        current = { version, book: b }
        loading = undefined
        lastLoadEnded = Date.now()
        lastLoadMs = lastLoadEnded - started
      },
      (err) => {
        deps.logger.error({ err }, 'social book load failed')
        loading = undefined
      },
    )
    return book
  }

  return {
    async get() {
      const deadline = Date.now() + freshWaitMs
      for (;;) {
        const version = versionNow()
        if (current?.version === version) return current.book
        const next = reload(version)
        if (!current) return next
        const left = deadline - Date.now()
        if (left <= 0) return current.book
        const stale = current.book
        const timedOut = await Promise.race([
          next.then(() => false, () => false),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(true), left).unref()),
        ])
        if (timedOut) return stale
        // A load that began before this version may have finished first, or the throttle kept
        // the previous book: go round (the deadline bounds the wait).
        if (current?.version !== version && Date.now() - lastLoadEnded < 4 * lastLoadMs) {
          await new Promise((r) => setTimeout(r, Math.min(deadline - Date.now(), 4 * lastLoadMs - (Date.now() - lastLoadEnded))))
        }
      }
    },
    async peek() {
      return current ? current.book : reload(versionNow())
    },
  }
}
