import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

/** A token's messaging-room record is reportable from this many distinct rooms on. */
export const TG_K_THRESHOLD = 3

export interface TgRecord {
  rooms: number
  messages: number
  firstAt: number | null
}

/** Room sightings of tokens (count-gated by the caller of this function). */
export async function tgRecords(ch: ClickHouseClient, tokens: string[]): Promise<Map<string, TgRecord>> {
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
 * The firehose clock, which social windows end at: the hour of the newest mention. Read from
 * the hourly view (a few rows per token-hour), not from the raw mentions (millions).
 */
export async function firehoseClock(ch: ClickHouseClient): Promise<number> {
  const [r] = await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(max(hour)) AS t FROM mention_hourly')
  return Number(r?.t ?? 0)
}

/** Did the messaging platform carry the token first? null when the room count is under k. */
export function tgLed(tg: TgRecord | undefined, firstMention: number | undefined): boolean | null {
  if (!tg || tg.rooms < TG_K_THRESHOLD || tg.firstAt === null) return null
  return firstMention === undefined || tg.firstAt < firstMention
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
