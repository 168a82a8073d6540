import { z } from 'zod'
import { queryRows } from '../../core/clickhouse.ts'
import { Handle, IsoCursor, Limit, LongPollWait } from '../../core/endpoint/schemas.ts'
import { heldSeconds, holdWhileEmpty, markWoken, wokenAt } from '../../core/serving/long-poll.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { isoToMicros } from '../../core/serving/cursor.ts'
import { inclusivePage } from './social-queries.ts'
import { CallerRecordView, callerRecordView, iso } from './caller-view.ts'

/** The columns both follow endpoints read, as EventRow. */
const EVENT_COLUMNS =
  'SELECT id, watcher, followed, toString(event) AS event, toUnixTimestamp(observed_at) AS observed_at, toUnixTimestamp(previous_poll) AS previous_poll FROM follow_events FINAL'

interface EventRow {
  id: string
  watcher: string
  followed: string
  event: 'baseline' | 'follow' | 'unfollow'
  observed_at: string
  previous_poll: string | null
}

export const socialFollowsEndpoint = defineEndpoint<ApiDeps>()({
  method: 'GET',
  path: '/social/follows',
  summary: 'Follow events',
  description:
    "Follow and unfollow transitions of watched principal accounts, observed by polls about every 6 hours (observed_at is the poll that saw it; previous_poll the one before). Each followed handle carries its measured caller record. Edges that existed when tracking began are never reported as dated follows. since is inclusive: dedupe by id; events of one poll share a timestamp and are delivered together.",
  tags: ['social'],
  query: z.object({ watched: Handle.optional(), event: z.enum(['follow', 'unfollow']).optional(), since: IsoCursor.optional(), limit: Limit(), wait: LongPollWait.optional() }),
  response: z.object({
    data: z.object({
      events: z.array(z.object({ id: z.string(), watched: z.string(), followed: z.string(), event: z.enum(['follow', 'unfollow']), observed_at: z.string(), previous_poll: z.string().nullable(), followed_record: CallerRecordView })),
      next_since: z.string().nullable(),
    }),
  }),
  access: { kind: 'paid', price: '0.02' },
  async handler({ query, deps }) {
    const since = query.since === undefined ? null : Math.floor(isoToMicros(query.since)! / 1e6)
    // One read per page and data version, whoever asks: pollers at the head share it.
    const read = () =>
      deps.cache.get(`follow-events:${since ?? ''}:${query.watched ?? ''}:${query.event ?? ''}:${query.limit}`, deps.watermarks.socialChainVersion(4663), () =>
        queryRows<EventRow>(
          deps.ch,
          `${EVENT_COLUMNS}
           WHERE watched = 1 AND event != 'baseline' AND observed_at >= {since:UInt32}
             AND ({watcher:String} = '' OR watcher = {watcher:String}) AND ({event:String} = '' OR toString(event) = {event:String})
           ORDER BY observed_at, id
           LIMIT {cap:UInt32}`,
          { since: since ?? 0, watcher: query.watched ?? '', event: query.event ?? '', cap: query.limit * 20 },
        ),
      )
    const held = await holdWhileEmpty({
      waitSeconds: heldSeconds(query.wait, deps.config),
      read: async () => inclusivePage(await read(), since, query.limit, (r) => Number(r.observed_at)),
      isEmpty: (p) => p.page.length === 0,
      watermarks: deps.watermarks,
      // Follow events are stored by the social pipeline.
      wakesOn: (source) => source === 'social',
    })
    const { page, next } = held
    const records = await deps.social.callers(page.map((r) => r.followed))
    // A woken poll's answer carries when its advance was learnt (svc_long_poll_answer_seconds).
    return markWoken({
      data: {
        events: page.map((r) => ({
          id: r.id,
          watched: r.watcher,
          followed: r.followed,
          event: r.event as 'follow' | 'unfollow',
          observed_at: iso(Number(r.observed_at)),
          previous_poll: r.previous_poll === null ? null : iso(Number(r.previous_poll)),
          followed_record: callerRecordView(r.followed, records.get(r.followed)),
        })),
        next_since: next === null ? null : iso(next),
      },
    }, wokenAt(held))
  },
})

export const followsOfHandleEndpoint = defineEndpoint<ApiDeps>()({
  method: 'GET',
  path: '/follows/{handle}',
  summary: 'Watched followers of a handle',
  description:
    'Watched principal accounts that follow the handle now, and since when, plus the observed follow/unfollow history. Edges already there when tracking began are labelled already_following_when_tracking_began with followed_at null.',
  tags: ['social'],
  params: z.object({ handle: Handle }),
  response: z.object({
    data: z.object({
      handle: z.string(),
      followed_by: z.array(z.object({ watched: z.string(), followed_at: z.string().nullable(), already_following_when_tracking_began: z.boolean() })),
      history: z.array(z.object({ id: z.string(), watched: z.string(), event: z.enum(['follow', 'unfollow']), observed_at: z.string(), previous_poll: z.string().nullable() })),
      caller: CallerRecordView,
    }),
  }),
  access: { kind: 'free' },
  tool: { name: 'svc_follows' },
  async handler({ params, deps }) {
    const [rows, record] = await Promise.all([
      queryRows<EventRow>(
        deps.ch,
        `${EVENT_COLUMNS} WHERE watched = 1 AND followed = {h:String} ORDER BY observed_at, id`,
        { h: params.handle },
      ),
      deps.social.caller(params.handle),
    ])
    // The current edge of each watcher is its latest event.
    const latest = new Map<string, EventRow>()
    for (const r of rows) latest.set(r.watcher, r)
    const followedBy = [...latest.values()]
      .filter((r) => r.event !== 'unfollow')
      .map((r) => ({
        watched: r.watcher,
        followed_at: r.event === 'baseline' ? null : iso(Number(r.observed_at)),
        already_following_when_tracking_began: r.event === 'baseline',
      }))
      .sort((a, b) => (a.watched < b.watched ? -1 : 1))
    return {
      data: {
        handle: params.handle,
        followed_by: followedBy,
        history: rows
          .filter((r) => r.event !== 'baseline')
          .map((r) => ({ id: r.id, watched: r.watcher, event: r.event as 'follow' | 'unfollow', observed_at: iso(Number(r.observed_at)), previous_poll: r.previous_poll === null ? null : iso(Number(r.previous_poll)) })),
        caller: callerRecordView(params.handle, record),
      },
    }
  },
})
