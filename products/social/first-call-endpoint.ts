import { roomRecordReportable, TG_K_THRESHOLD } from './room-lead.ts'
import { z } from 'zod'
import { Address } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { tokenSocial } from './token-social.ts'
import { iso } from './caller-view.ts'

export const firstCallEndpoint = defineEndpoint<ApiDeps>()({
  method: 'GET',
  path: '/tg/first-call/{token}',
  summary: 'Messaging-platform first call',
  description:
    'Whether messaging-platform rooms carried the token before the social network, and by how many minutes (lead_minutes positive: the messaging platform first). Count-gated: only when the token was seen in at least k_threshold distinct rooms is the record reportable; otherwise the messaging-platform fields are null. Rooms are never named and no message text is returned. corpus_through is the newest sighting in the corpus.',
  tags: ['social'],
  params: z.object({ token: Address }),
  response: z.object({
    data: z.object({
      token: z.string(),
      reportable: z.boolean(),
      k_threshold: z.number().int(),
      telegram_first_at: z.string().nullable(),
      x_first_at: z.string().nullable(),
      lead_minutes: z.number().nullable(),
      telegram_was_first: z.boolean().nullable(),
      telegram_mentions: z.number().int().nullable(),
      telegram_source_count: z.number().int().nullable(),
      corpus_through: z.string().nullable(),
    }),
  }),
  access: { kind: 'paid', price: '0.03' },
  tool: { name: 'svc_first_call' },
  async handler({ params, deps }) {
    const social = tokenSocial(deps)
    const [tg, first, clocks] = await Promise.all([social.rooms([params.token]), social.firstMentions([params.token]), social.clocks()])
    const r = tg.get(params.token)
    const x = first.get(params.token) ?? null
    const reportable = roomRecordReportable(r)
    const corpusThrough = clocks.corpus
    return {
      data: {
        token: params.token,
        reportable,
        k_threshold: TG_K_THRESHOLD,
        telegram_first_at: reportable ? iso(r!.firstAt!) : null,
        x_first_at: x === null ? null : iso(x),
        lead_minutes: reportable && x !== null ? Math.round(((x - r!.firstAt!) / 60) * 10) / 10 : null,
        telegram_was_first: reportable ? x === null || r!.firstAt! < x : null,
        telegram_mentions: reportable ? r!.messages : null,
        telegram_source_count: reportable ? r!.rooms : null,
        corpus_through: corpusThrough ? iso(corpusThrough) : null,
      },
    }
  },
})
