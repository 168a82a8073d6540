import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { mutualClusters, scoreCaller, type CallerGrade } from '../../core/domain/caller-grade.ts'
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
  runAt: number | null
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
 * computed once per (chain watermark, social version). Call lists are read per caller on demand.
 */
export interface SocialBook {
  callers: Map<string, CallerRecord>
  clusters: Map<string, string>
  mirrors: MirrorRecord[]
  watched: Set<string>
  /** Unix seconds of the newest chain block: calls an hour older than this are gradable. */
  chainTime: number
}

async function loadSocialBook(ch: ClickHouseClient): Promise<SocialBook> {
  const [t] = await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(max(timestamp)) AS t FROM chain_blocks WHERE chain_id = 4663')
  const chainTime = Number(t?.t ?? 0)
  const [summaries, snapshots, mirrors] = await Promise.all([
    queryRows<{ author: string; calls: string; graded: string; early: string; momentum: string; hits: string; median_return: number }>(
      ch,
      namedQuery('caller_summaries'),
      { chain: 4663, chain_time: chainTime },
    ),
    queryRows<{ account: string; following: string[]; watched: number }>(
      ch,
      'SELECT account, argMax(following, observed_at) AS following, argMax(watched, observed_at) AS watched FROM follow_snapshots GROUP BY account',
    ),
    queryRows<MirrorRecord>(ch, 'SELECT chain, handle, calls, early_rate, momentum_rate, median_return_1h, score, updated_at FROM caller_mirrors FINAL'),
  ])
  const clusters = mutualClusters(new Map(snapshots.map((s) => [s.account, new Set(s.following)])))
  const callers = new Map<string, CallerRecord>()
  for (const s of summaries) {
    const graded = Number(s.graded)
    const grade = scoreCaller({
      calls: Number(s.calls),
      graded,
      early: Number(s.early),
      momentum: Number(s.momentum),
      hits: Number(s.hits),
      medianReturn1h: graded ? Number(s.median_return) : null,
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

/** A caller's latest `limit` calls with their grading, newest first. */
export async function callsOf(ch: ClickHouseClient, book: SocialBook, handle: string, limit: number): Promise<CallRecord[]> {
  const rows = await queryRows<{ token: string; called_at: string; captured_at: string; post_id: string; return_1h: number | null; run_at: string }>(
    ch,
    `SELECT token, toUnixTimestamp(called_at) AS called_at, toUnixTimestamp(captured_at) AS captured_at, post_id, return_1h, toUnixTimestamp(run_at) AS run_at
     FROM graded_calls(chain = 4663, chain_time = {chain_time:UInt32}, author = {author:String})
     ORDER BY called_at DESC, token LIMIT {limit:UInt32}`,
    { chain_time: book.chainTime, author: handle, limit },
  )
  return rows.map((r) => {
    const runAt = Number(r.run_at) || null
    return { author: handle, token: r.token, postId: r.post_id, calledAt: Number(r.called_at), capturedAt: Number(r.captured_at), return1h: r.return_1h, runAt, early: runAt !== null && Number(r.called_at) < runAt }
  })
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
 * while it runs, requests wait at most FRESH_WAIT_MS and then get the previous book, so a large
 * corpus never puts a full regrade on the request path.
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
    // A regrade of a large corpus is heavy: keep the engine mostly free for requests by
    // starting the next one only after four times the last one's duration has passed.
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
