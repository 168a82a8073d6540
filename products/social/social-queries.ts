import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { RoomRecord } from './room-lead.ts'
import { isEarlyCall } from './caller-grade.ts'
import type { ServingCache } from '../../core/serving/serving-cache.ts'
import type { Watermarks } from '../../core/serving/watermarks.ts'

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
  /** isEarlyCall(calledAt, runAt) (products/social/caller-grade.ts). */
  early: boolean
}

/** Room sightings of tokens (count-gated by the caller of this function). */
export async function tgRecords(ch: ClickHouseClient, tokens: string[]): Promise<Map<string, RoomRecord>> {
  if (tokens.length === 0) return new Map()
  const rows = await queryRows<{ token: string; rooms: string; messages: string; first_at: string }>(
    ch,
    'SELECT token, uniqExactMerge(rooms) AS rooms, uniqExactMerge(messages) AS messages, toUnixTimestamp(min(first_at)) AS first_at FROM tg_token_stats WHERE token IN {t:Array(String)} GROUP BY token',
    { t: tokens },
  )
  return new Map(rows.map((r) => [r.token, { rooms: Number(r.rooms), messages: Number(r.messages), firstAt: Number(r.first_at) || null }]))
}

/** First social mention (unix seconds) of each token. */
export async function firstMentions(ch: ClickHouseClient, tokens: string[]): Promise<Map<string, number>> {
  if (tokens.length === 0) return new Map()
  const rows = await queryRows<{ token: string; t: string }>(
    ch,
    "SELECT token, toUnixTimestamp(min(posted_at)) AS t FROM mentions WHERE token IN {t:Array(String)} GROUP BY token",
    { t: tokens },
  )
  return new Map(rows.map((r) => [r.token, Number(r.t)]))
}

/**
 * The firehose clock, which social windows end at: the hour of the newest mention (of `tokens`
 * only, when given: mention_hourly by its token key). Read from the hourly view (a few rows per
 * token-hour), not from the raw mentions (millions).
 */
export async function firehoseClock(ch: ClickHouseClient, tokens?: string[]): Promise<number> {
  const [r] = tokens
    ? await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(max(hour)) AS t FROM mention_hourly WHERE token IN {tokens:Array(String)}', { tokens })
    : await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(max(hour)) AS t FROM mention_hourly')
  return Number(r?.t ?? 0)
}

/** The room corpus clock: the newest sighting (of `tokens` only, when given: tg_sightings by its token key). */
export async function corpusClock(ch: ClickHouseClient, tokens?: string[]): Promise<number> {
  const [r] = tokens
    ? await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(max(seen_at)) AS t FROM tg_sightings WHERE token IN {tokens:Array(String)}', { tokens })
    : await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(max(seen_at)) AS t FROM tg_sightings')
  return Number(r?.t ?? 0)
}

/** The start of the hour holding `unixSeconds`. */
export const hourOf = (unixSeconds: number) => Math.floor(unixSeconds / 3600) * 3600

export interface MentionSummary {
  total: number
  firstPost: string
  firstAuthor: string
  /** Unix seconds of the first mention (posting time), 0 without one. */
  firstAt: number
  /** Unix seconds of its capture, 0 without one. */
  firstCapturedAt: number
  authors: string[]
  /** Mentions per hour over the 24 hours ending with the firehose clock's hour, oldest first. */
  velocity24h: Array<{ hour: number; mentions: number }>
}

/**
 * A token's mention totals and 24 h velocity: `mentions` by its token key, mention_hourly by
 * (token, hour); the window ends at the firehose clock's hour (`clock`, read when not given).
 */
export async function mentionSummary(ch: ClickHouseClient, token: string, clock?: number): Promise<MentionSummary> {
  const p = { t: token }
  const [[agg], firehose] = await Promise.all([
    queryRows<{ total: string; first_post: string; first_author: string; first_at: string; first_captured: string; authors: string[] }>(
      ch,
      `SELECT uniqExact(post_id) AS total, argMin(post_id, (posted_at, post_id)) AS first_post, argMin(author, (posted_at, post_id)) AS first_author,
              toUnixTimestamp(min(posted_at)) AS first_at, toUnixTimestamp(argMin(captured_at, (posted_at, post_id))) AS first_captured, groupUniqArray(author) AS authors
       FROM mentions WHERE token = {t:String}`,
      p,
    ),
    clock ?? firehoseClock(ch),
  ])
  const endHour = hourOf(firehose)
  const hourly = await queryRows<{ hour: string; n: string }>(
    ch,
    'SELECT toUnixTimestamp(hour) AS hour, uniqExactMerge(posts) AS n FROM mention_hourly WHERE token = {t:String} AND hour > {from:UInt32} AND hour <= {to:UInt32} GROUP BY hour',
    // Before any mention (an empty firehose) the window would start before 1970.
    { ...p, from: Math.max(0, endHour - 24 * 3600), to: endHour },
  )
  const byHour = new Map(hourly.map((h) => [Number(h.hour), Number(h.n)]))
  const total = Number(agg?.total ?? 0)
  return {
    total,
    firstPost: agg?.first_post ?? '',
    firstAuthor: agg?.first_author ?? '',
    firstAt: total > 0 ? Number(agg!.first_at) : 0,
    firstCapturedAt: total > 0 ? Number(agg!.first_captured) : 0,
    authors: agg?.authors ?? [],
    velocity24h: Array.from({ length: 24 }, (_, i) => endHour - (23 - i) * 3600).map((h) => ({ hour: h, mentions: byHour.get(h) ?? 0 })),
  }
}

/** Accounts, clustered accounts, clusters and independent voices (a mutual-follow cluster is one voice). */
export function voicesOf(authors: string[], clusterOf: Map<string, string>): { accounts: number; clustered_accounts: number; clusters: number; independent_voices: number } {
  const clusters = new Set<string>()
  let clustered = 0
  for (const a of authors) {
    const c = clusterOf.get(a)
    if (c) {
      clustered++
      clusters.add(c)
    }
  }
  return { accounts: authors.length, clustered_accounts: clustered, clusters: clusters.size, independent_voices: authors.length - clustered + clusters.size }
}

/**
 * A page of items ordered by (time, id) from an inclusive `since`, extended to the end of the
 * last time it reached, so that items sharing a timestamp are delivered together. When the whole
 * page shares the cursor's timestamp, the next cursor moves one second on, so a poller always
 * progresses; clients dedupe by id.
 */
export function inclusivePage<T>(items: T[], since: number | null, limit: number, timeOf: (t: T) => number): { page: T[]; next: number | null } {
  let i = 0
  if (since !== null) while (i < items.length && timeOf(items[i]!) < since) i++
  let end = Math.min(items.length, i + limit)
  if (end > i) {
    const lastTime = timeOf(items[end - 1]!)
    while (end < items.length && timeOf(items[end]!) === lastTime) end++
  }
  const page = items.slice(i, end)
  if (page.length === 0) return { page, next: since }
  const last = timeOf(page[page.length - 1]!)
  return { page, next: since !== null && last === since && timeOf(page[0]!) === since ? since + 1 : last }
}

/**
 * A caller's latest `limit` calls with their grades, newest first, cached per data version.
 * Access paths, all by key: the caller's calls from `calls` (author, token), their stored grades
 * from call_grades (author, token), their tokens' runs from token_real (chain, token). Calls not
 * graded yet (or never: no trade in their hour) have a null return.
 */
export async function callsOf(
  deps: { ch: ClickHouseClient; cache: ServingCache; watermarks: Watermarks },
  handle: string,
  limit: number,
): Promise<CallRecord[]> {
  const version = deps.watermarks.socialChainVersion(4663)
  return deps.cache.get(`caller-calls:${handle}:${limit}`, version, async () => {
    const calls = await queryRows<{ token: string; called_at: string; captured_at: string; post_id: string }>(
      deps.ch,
      `SELECT token, toUnixTimestamp(min(called_at)) AS called_at, toUnixTimestamp(min(captured_at)) AS captured_at, argMinMerge(first_post) AS post_id
       FROM calls WHERE author = {author:String} GROUP BY token ORDER BY called_at DESC, token LIMIT {limit:UInt32}`,
      { author: handle, limit },
    )
    const tokens = calls.map((c) => c.token)
    const [grades, runs] = await Promise.all([
      tokens.length === 0
        ? []
        : queryRows<{ token: string; return_1h: number; sign: number }>(
            deps.ch,
            `SELECT token, return_1h, sign FROM call_grades WHERE author = {author:String} AND token IN {tokens:Array(String)}
             ORDER BY version DESC, sign ASC LIMIT 1 BY token`,
            { author: handle, tokens },
          ),
      tokens.length === 0
        ? []
        : queryRows<{ token: string; t: string }>(
            deps.ch,
            'SELECT token, toUnixTimestamp(min(real_at)) AS t FROM token_real WHERE chain_id = 4663 AND token IN {tokens:Array(String)} GROUP BY token',
            { tokens },
          ),
    ])
    // A key whose latest row is a cancel (sign -1) is not graded.
    const returns = new Map(grades.filter((g) => Number(g.sign) === 1).map((g) => [g.token, Number(g.return_1h)]))
    const runAt = new Map(runs.map((r) => [r.token, Number(r.t)]))
    return calls.map((c) => {
      const calledAt = Number(c.called_at)
      const run = runAt.get(c.token) ?? null
      return { author: handle, token: c.token, postId: c.post_id, calledAt, capturedAt: Number(c.captured_at), return1h: returns.get(c.token) ?? null, runAt: run, early: isEarlyCall(calledAt, run) }
    })
  })
}
