import { roomsLed } from './room-lead.ts'
import { z } from 'zod'
import { IsoCursor, Limit, LongPollWait } from '../../core/endpoint/schemas.ts'
import { heldSeconds, holdWhileEmpty, markWoken, wokenAt } from '../../core/serving/long-poll.ts'
import { createPerVersionAnswers, KEPT_FEED_PAGES, keepsFeedPage, type PerVersionAnswers } from '../../core/serving/per-version-answers.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { isoToMicros } from '../../core/serving/cursor.ts'
import { inclusivePage } from './social-queries.ts'
import { tokenSocial } from './token-social.ts'
import { CallerRecordView, callerRecordView, iso } from './caller-view.ts'

const bool = z.enum(['true', 'false'], { error: 'expected true or false' }).transform((v) => v === 'true')

const SignalsQuery = z.object({
  since: IsoCursor.optional(),
  min_early_rate: z.coerce.number().min(0, 'expected a number from 0 to 1').max(1, 'expected a number from 0 to 1').default(0.5),
  min_calls: z.coerce.number().int('expected a whole number').min(0, 'expected a whole number').default(4),
  min_rank_score: z.coerce.number().min(0, 'expected a number from 0 to 1').max(1, 'expected a number from 0 to 1').default(0.3),
  include_coordinated: bool.optional(),
  limit: Limit(),
  wait: LongPollWait.optional(),
})

export const signalsEndpoint = defineEndpoint<ApiDeps>()({
  method: 'GET',
  path: '/signals/calls',
  summary: 'Measured-caller calls',
  description:
    "Calls (first mentions of a token) by measured callers, in capture order, with the caller's graded record, the token's deployer score, FDV and tg_led (the messaging platform carried the token first; null under the room threshold). Filters: min_early_rate (default 0.5), min_calls graded calls (default 4), min_rank_score (score/100, default 0.3); callers in mutual-follow clusters are left out unless include_coordinated=true. since is an inclusive captured_at cursor: dedupe by id.",
  tags: ['social'],
  query: SignalsQuery,
  response: z.object({
    data: z.object({
      calls: z.array(z.object({
        id: z.string(), token: z.string(), symbol: z.string().nullable(), called_at: z.string(), captured_at: z.string(),
        rank_score: z.number(), caller: CallerRecordView, deployer_score: z.number().int().nullable(),
        fdv_weth_wei: z.string().nullable(), fdv_usd: z.number().nullable(), tg_led: z.boolean().nullable(),
      })),
      next_since: z.string().nullable(),
    }),
  }),
  access: { kind: 'paid', price: '0.02' },
  tool: { name: 'svc_signals' },
  async handler({ query, deps }) {
    // A page with calls, kept for the social data and the chain it was read at: pollers following
    // next_since ask the same cursors between two changes.
    const version = deps.watermarks.socialChainVersion(4663)
    const key = `${query.since ?? ''}|${query.min_early_rate}|${query.min_calls}|${query.min_rank_score}|${query.include_coordinated ?? false}|${query.limit}|${query.wait ?? 0}`
    const pages = pagesOf(deps.social)
    const kept = pages.get(version, key)
    if (kept) return kept as Awaited<ReturnType<typeof signalsPage>>
    const page = await signalsPage(query, deps)
    if (keepsFeedPage(page, page.data.calls.length, query.wait)) pages.set(version, key, page)
    return page
  },
})

/** Pages kept per social serving (one per API in a process). */
const keptPages = new WeakMap<object, PerVersionAnswers<object>>()

function pagesOf(social: object): PerVersionAnswers<object> {
  let pages = keptPages.get(social)
  if (!pages) keptPages.set(social, (pages = createPerVersionAnswers(KEPT_FEED_PAGES, 'signal_pages')))
  return pages
}

async function signalsPage(query: z.output<typeof SignalsQuery>, deps: ApiDeps) {
  const since = query.since === undefined ? null : Math.floor(isoToMicros(query.since)! / 1e6)
  // Eligible callers are chosen by the engine from caller_state (see signalCalls), not here.
  const filter = { minEarlyRate: query.min_early_rate, minGraded: query.min_calls, minRankScore: query.min_rank_score, includeCoordinated: query.include_coordinated ?? false }
  const held = await holdWhileEmpty({
    waitSeconds: heldSeconds(query.wait, deps.config),
    read: async () => inclusivePage(await deps.social.signalCalls(filter, since ?? 0, query.limit * 20), since, query.limit, (c) => c.capturedAt),
    isEmpty: (p) => p.page.length === 0,
    watermarks: deps.watermarks,
    // A call lands with social rows; a caller becomes eligible when the grader writes (also social).
    wakesOn: (source) => source === 'social',
  })
  const { page, next } = held
  const tokenList = [...new Set(page.map((c) => c.token))]
  const [tg, first, tokens, callers] = await Promise.all([
    tokenSocial(deps).rooms(tokenList), tokenSocial(deps).firstMentions(tokenList), deps.tokens.tokens(tokenList), deps.social.callers([...new Set(page.map((c) => c.author))]),
  ])
  const deployers = await deps.tokens.deployers([...tokens.values()].map((t) => t.deployer ?? '').filter(Boolean))
  // A woken poll's answer carries when its advance was learnt (svc_long_poll_answer_seconds).
  return markWoken({
    data: {
      calls: page.map((c) => {
        const r = callers.get(c.author)
        const t = tokens.get(c.token)
        const d = t?.deployer ? deployers.get(t.deployer) : undefined
        return {
          id: `${c.author}:${c.token}`,
          token: c.token,
          symbol: t?.symbol || null,
          called_at: iso(c.calledAt),
          captured_at: iso(c.capturedAt),
          rank_score: (r?.score ?? 0) / 100,
          caller: callerRecordView(c.author, r),
          deployer_score: d?.score ?? null,
          fdv_weth_wei: t?.quote ? t.quote.fdvWethWei.toString() : null,
          fdv_usd: t?.quote?.fdvUsd ?? null,
          tg_led: roomsLed(tg.get(c.token), first.get(c.token)),
        }
      }),
      next_since: next === null ? null : iso(next),
    },
  }, wokenAt(held))
}
