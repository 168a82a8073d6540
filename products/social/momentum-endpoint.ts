import { z } from 'zod'
import { queryRows } from '../../core/clickhouse.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { tokenSocial } from './token-social.ts'
import { iso, round } from './caller-view.ts'

const MOMENTUM_SIZE = 50

export const momentumEndpoint = defineEndpoint<ApiDeps>()({
  method: 'GET',
  path: '/social/momentum',
  summary: 'Social momentum',
  description:
    'Tokens mentioned in the last `hours` (1-48, default 6; the window ends with the hour of the newest mention), ranked by measured caller-accuracy weight (the sum over voices of the best measured score in the voice / 100), then independent voices, then mentions. A mutual-follow cluster is one voice.',
  tags: ['social'],
  query: z.object({ hours: z.coerce.number().int('expected an integer from 1 to 48').min(1, 'expected an integer from 1 to 48').max(48, 'expected an integer from 1 to 48').default(6) }),
  response: z.object({
    data: z.object({
      hours: z.number().int(),
      window_end: z.string().nullable(),
      tokens: z.array(z.object({ rank: z.number().int(), token: z.string(), symbol: z.string().nullable(), accuracy_weight: z.number(), independent_voices: z.number().int(), mentions: z.number().int(), measured_callers: z.number().int() })),
    }),
  }),
  access: { kind: 'paid', price: '0.02' },
  tool: { name: 'svc_momentum' },
  async handler({ query, deps }) {
    const version = deps.watermarks.socialChainVersion(4663)
    return deps.cache.get(`momentum:${query.hours}`, version, async () => {
      const clock = (await tokenSocial(deps).clocks()).firehose
      const end = Math.floor(clock / 3600) * 3600
      const rows = await queryRows<{ token: string; mentions: string; authors: string[] }>(
        deps.ch,
        'SELECT token, uniqExactMerge(posts) AS mentions, groupUniqArrayMerge(authors) AS authors FROM mention_hourly WHERE hour > {from:UInt32} AND hour <= {to:UInt32} GROUP BY token',
        { from: end - query.hours * 3600, to: end },
      )
      // The records and clusters of the window's authors only, by key.
      const authors = [...new Set(rows.flatMap((r) => r.authors))]
      const [callers, clusters] = await Promise.all([deps.social.callers(authors), deps.social.clusters(authors)])
      const ranked = rows
        .map((r) => {
          // One voice per cluster (or per independent account), weighted by its best measured score.
          const voices = new Map<string, number>()
          let measured = 0
          for (const a of r.authors) {
            const c = callers.get(a)
            const weight = c?.measured && c.score !== null ? c.score / 100 : 0
            if (weight > 0) measured++
            const voice = clusters.get(a) ?? a
            voices.set(voice, Math.max(voices.get(voice) ?? 0, weight))
          }
          const weight = [...voices.values()].reduce((s, w) => s + w, 0)
          return { token: r.token, symbol: null as string | null, accuracy_weight: round(weight), independent_voices: voices.size, mentions: Number(r.mentions), measured_callers: measured }
        })
        .sort((a, b) => b.accuracy_weight - a.accuracy_weight || b.independent_voices - a.independent_voices || b.mentions - a.mentions || (a.token < b.token ? -1 : 1))
        .slice(0, MOMENTUM_SIZE)
      const symbols = await deps.tokens.tokens(ranked.map((t) => t.token))
      const tokens = ranked.map((t, i) => ({ rank: i + 1, ...t, symbol: symbols.get(t.token)?.symbol || null }))
      return { data: { hours: query.hours, window_end: clock ? iso(end) : null, tokens } }
    })
  },
})
