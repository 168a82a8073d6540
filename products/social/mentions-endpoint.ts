import { z } from 'zod'
import { queryRows } from '../../core/clickhouse.ts'
import { Address } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { tokenSocial } from './token-social.ts'
import { mentionSummary, voicesOf } from './social-queries.ts'
import { CallerRecordView, callerRecordView, iso } from './caller-view.ts'

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
      const agg = await mentionSummary(deps.ch, params.token, (await tokenSocial(deps).clocks()).firehose)
      // The records and clusters of the accounts this answer names, by key.
      const [callers, clusterOf] = await Promise.all([deps.social.callers(tape.map((m) => m.author)), deps.social.clusters(agg.authors)])
      const total = agg.total
      return {
        data: {
          token: params.token,
          mentions: tape.map((m) => ({ post_id: m.post_id, author: m.author, posted_at: iso(Number(m.posted_at)), via: m.via, caller: callerRecordView(m.author, callers.get(m.author)) })),
          total,
          truncated: total > TAPE,
          first_mention: total > 0 ? { post_id: agg.firstPost, author: agg.firstAuthor, posted_at: iso(agg.firstAt) } : null,
          voices: voicesOf(agg.authors, clusterOf),
          velocity_24h: agg.velocity24h.map((v) => ({ hour: iso(v.hour), mentions: v.mentions })),
        },
      }
    })
  },
})
