import { z } from 'zod'
import { queryRows } from '../../core/clickhouse.ts'
import { Address } from '../catalog/schemas.ts'
import { defineEndpoint } from '../catalog/types.ts'
import type { ApiDeps } from '../deps.ts'
import { firehoseClock } from '../serving/social-queries.ts'
import { CallerRecordView, callerRecordView, iso } from '../views/caller.ts'

const TAPE = 200

export const mentionsEndpoint = defineEndpoint<ApiDeps>()({
  method: 'GET',
  path: '/mentions/{token}',
  summary: 'Mention tape',
  description:
    "The latest 200 mentions of a token, each with the mentioning account's measured accuracy record; the true total and a truncation flag; the first-ever mention; clustered vs independent voices (a mutual-follow cluster is one voice); and the 24 h velocity in hourly buckets ending with the hour of the newest mention. No post text is returned.",
  tags: ['social'],
  params: z.object({ token: Address }),
  response: z.object({
    data: z.object({
      token: z.string(),
      mentions: z.array(z.object({ post_id: z.string(), author: z.string(), posted_at: z.string(), via: z.enum(['address', 'cashtag']), caller: CallerRecordView })),
      total: z.number().int(),
      truncated: z.boolean(),
      first_mention: z.object({ post_id: z.string(), author: z.string(), posted_at: z.string() }).nullable(),
      voices: z.object({ accounts: z.number().int(), clustered_accounts: z.number().int(), clusters: z.number().int(), independent_voices: z.number().int() }),
      velocity_24h: z.array(z.object({ hour: z.string(), mentions: z.number().int() })),
    }),
  }),
  access: { kind: 'paid', price: '0.02' },
  tool: { name: 'svc_mentions' },
  async handler({ params, deps }) {
    const version = deps.watermarks.socialChainVersion(4663)
    return deps.cache.get(`mentions:${params.token}`, version, async () => {
      const p = { t: params.token }
      const tape = await queryRows<{ post_id: string; author: string; posted_at: string; via: 'address' | 'cashtag' }>(
        deps.ch,
        `SELECT post_id, any(author) AS author, toUnixTimestamp(min(posted_at)) AS posted_at, any(via) AS via FROM mentions WHERE token = {t:String}
         GROUP BY post_id ORDER BY posted_at DESC, post_id DESC LIMIT ${TAPE}`,
        p,
      )
      const [agg] = await queryRows<{ total: string; first_post: string; first_author: string; first_at: string; authors: string[] }>(
        deps.ch,
        `SELECT uniqExact(post_id) AS total, argMin(post_id, (posted_at, post_id)) AS first_post, argMin(author, (posted_at, post_id)) AS first_author,
                toUnixTimestamp(min(posted_at)) AS first_at, groupUniqArray(author) AS authors
         FROM mentions WHERE token = {t:String}`,
        p,
      )
      const clock = await firehoseClock(deps.ch)
      const endHour = Math.floor(clock / 3600) * 3600
      const hourly = await queryRows<{ hour: string; n: string }>(
        deps.ch,
        'SELECT toUnixTimestamp(hour) AS hour, uniqExactMerge(posts) AS n FROM mention_hourly WHERE token = {t:String} AND hour > {from:UInt32} AND hour <= {to:UInt32} GROUP BY hour',
        { ...p, from: endHour - 24 * 3600, to: endHour },
      )
      const byHour = new Map(hourly.map((h) => [Number(h.hour), Number(h.n)]))
      // The records and clusters of the accounts this answer names, by key.
      const [callers, clusterOf] = await Promise.all([deps.social.callers(tape.map((m) => m.author)), deps.social.clusters(agg!.authors)])
      const total = Number(agg!.total)
      const clusters = new Set<string>()
      let clustered = 0
      for (const a of agg!.authors) {
        const c = clusterOf.get(a)
        if (c) {
          clustered++
          clusters.add(c)
        }
      }
      return {
        data: {
          token: params.token,
          mentions: tape.map((m) => ({ post_id: m.post_id, author: m.author, posted_at: iso(Number(m.posted_at)), via: m.via, caller: callerRecordView(m.author, callers.get(m.author)) })),
          total,
          truncated: total > TAPE,
          first_mention: total > 0 ? { post_id: agg!.first_post, author: agg!.first_author, posted_at: iso(Number(agg!.first_at)) } : null,
          voices: { accounts: agg!.authors.length, clustered_accounts: clustered, clusters: clusters.size, independent_voices: agg!.authors.length - clustered + clusters.size },
          velocity_24h: Array.from({ length: 24 }, (_, i) => endHour - (23 - i) * 3600).map((h) => ({ hour: iso(h), mentions: byHour.get(h) ?? 0 })),
        },
      }
    })
  },
})
