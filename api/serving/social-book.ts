import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { gradeCaller, mutualClusters, type CallerGrade } from '../../core/domain/caller-grade.ts'
import type { Logger } from '../../core/logger.ts'
import { namedQuery } from '../../sql/queries.ts'
import type { Watermarks } from './watermarks.ts'

export interface CallRecord {
  author: string
  token: string
  postId: string
  calledAt: number
  capturedAt: number
  mentions: number
  /** 1 h forward return, null until graded. */
  return1h: number | null
  runAt: number | null
  early: boolean
  momentum: boolean
}

export interface CallerRecord extends CallerGrade {
  handle: string
  /** Mutual-follow cluster id (its smallest handle), or null for an independent account. */
  cluster: string | null
  /** Calls, newest first. */
  callList: CallRecord[]
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

/** Callers, clusters and calls, computed once per (chain watermark, social version). */
export interface SocialBook {
  callers: Map<string, CallerRecord>
  clusters: Map<string, string>
  /** Every call in capture order (the signals cursor). */
  calls: CallRecord[]
  mirrors: MirrorRecord[]
  watched: Set<string>
  chainTime: number
}

interface CallRow {
  author: string
  token: string
  called_at: string
  captured_at: string
  post_id: string
  mentions: string
  entry_price: number
  entry_at: string
  exit_price: number
  exit_at: string
  run_at: string
}

async function loadSocialBook(ch: ClickHouseClient): Promise<SocialBook> {
  const [t] = await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(max(timestamp)) AS t FROM chain_blocks WHERE chain_id = 4663')
  const chainTime = Number(t?.t ?? 0)
  const rows = await queryRows<CallRow>(ch, namedQuery('graded_calls'), { chain: 4663 })
  const snapshots = await queryRows<{ account: string; following: string[]; watched: number }>(
    ch,
    'SELECT account, argMax(following, observed_at) AS following, argMax(watched, observed_at) AS watched FROM follow_snapshots GROUP BY account',
  )
  const clusters = mutualClusters(new Map(snapshots.map((s) => [s.account, new Set(s.following)])))
  const calls: CallRecord[] = rows.map((r) => {
    const calledAt = Number(r.called_at)
    const entryAt = Number(r.entry_at)
    const exitAt = Number(r.exit_at)
    const runAt = Number(r.run_at) || null
    const gradable = chainTime >= calledAt + 3600 && entryAt > 0 && entryAt <= calledAt + 3600 && exitAt >= entryAt && r.entry_price > 0
    return {
      author: r.author,
      token: r.token,
      postId: r.post_id,
      calledAt,
      capturedAt: Number(r.captured_at),
      mentions: Number(r.mentions),
      return1h: gradable ? r.exit_price / r.entry_price - 1 : null,
      runAt,
      early: runAt !== null && calledAt < runAt,
      momentum: runAt !== null && calledAt >= runAt,
    }
  })
  const byAuthor = new Map<string, CallRecord[]>()
  for (const c of calls) {
    if (!byAuthor.has(c.author)) byAuthor.set(c.author, [])
    byAuthor.get(c.author)!.push(c)
  }
  const callers = new Map<string, CallerRecord>()
  for (const [handle, list] of byAuthor) {
    list.sort((a, b) => b.calledAt - a.calledAt || (a.token < b.token ? -1 : 1))
    callers.set(handle, { handle, ...gradeCaller(list), cluster: clusters.get(handle) ?? null, callList: list })
  }
  const mirrors = await queryRows<MirrorRecord>(ch, 'SELECT chain, handle, calls, early_rate, momentum_rate, median_return_1h, score, updated_at FROM caller_mirrors FINAL')
  return {
    callers,
    clusters,
    calls: [...calls].sort((a, b) => a.capturedAt - b.capturedAt || (a.author + a.token < b.author + b.token ? -1 : 1)),
    mirrors: mirrors.map((m) => ({ ...m, calls: Number(m.calls), score: Number(m.score) })),
    watched: new Set(snapshots.filter((s) => s.watched).map((s) => s.account)),
    chainTime,
  }
}

export interface SocialBookSource {
  get(): Promise<SocialBook>
}

/** The social book of the current versions; concurrent requests share one load. */
export function createSocialBookSource(deps: { ch: ClickHouseClient; watermarks: Watermarks; logger: Logger }): SocialBookSource {
  let current: { version: string; book: Promise<SocialBook> } | undefined
  return {
    get() {
      const version = `${deps.watermarks.version(4663)}/${deps.watermarks.socialVersion()}`
      if (current?.version !== version) {
        const book = loadSocialBook(deps.ch)
        const entry = { version, book }
        book.catch((err) => {
          deps.logger.error({ err }, 'social book load failed')
          if (current === entry) current = undefined
        })
        current = entry
      }
      return current.book
    },
  }
}
