import { z } from 'zod'
import { gradeOf } from './caller-grade.ts'
import { Handle } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { CallerRecordView, callerRecordView, iso, round } from './caller-view.ts'
import { callsOf, type CallRecord } from './social-queries.ts'
import type { TokenRecord } from '../token/token-serving.ts'

const CALL_LOG_LIMIT = 100
const RECENT_CALLS = 10

const CallView = z.object({
  token: z.string(),
  symbol: z.string().nullable(),
  called_at: z.string(),
  return_1h: z.number().nullable().meta({ description: '1 h forward return; null until graded' }),
  early: z.boolean().meta({ description: 'placed before the token became real' }),
  outcome: z.object({ is_real: z.boolean(), dead: z.boolean(), fdv_weth_wei: z.string().nullable(), fdv_usd: z.number().nullable() }),
})

function callView(c: CallRecord, tokens: Map<string, TokenRecord>): z.infer<typeof CallView> {
  const t = tokens.get(c.token)
  return {
    token: c.token,
    symbol: t?.symbol || null,
    called_at: iso(c.calledAt),
    return_1h: c.return1h === null ? null : round(c.return1h),
    early: c.early,
    outcome: { is_real: t?.realBlock != null, dead: Boolean(t?.dead), fdv_weth_wei: t?.quote ? t.quote.fdvWethWei.toString() : null, fdv_usd: t?.quote?.fdvUsd ?? null },
  }
}

export const callerCardEndpoint = defineEndpoint<ApiDeps>()({
  method: 'GET',
  path: '/caller/{handle}',
  summary: 'Caller report card',
  description:
    'Report card of a social account that calls tokens: early_rate (calls before the run), momentum_rate, median 1 h forward return, mutual-follow-cluster flag, the 0-100 score and grade A-D, and the 10 most recent calls. Free, 30 requests per minute per IP.',
  tags: ['social'],
  params: z.object({ handle: Handle }),
  response: z.object({ data: CallerRecordView.extend({ found: z.boolean(), recent_calls: z.array(CallView) }) }),
  access: { kind: 'free', perMinute: 30, note: '30 requests per minute per IP, then 429 with Retry-After' },
  tool: { name: 'svc_caller' },
  async handler({ params, deps }) {
    const c = await deps.social.caller(params.handle)
    const recent = c ? await callsOf(deps, params.handle, RECENT_CALLS) : []
    const tokens = await deps.tokens.tokens(recent.map((x) => x.token))
    return { data: { ...callerRecordView(params.handle, c), found: Boolean(c), recent_calls: recent.map((x) => callView(x, tokens)) } }
  },
})

export const callerCallsEndpoint = defineEndpoint<ApiDeps>()({
  method: 'GET',
  path: '/caller/{handle}/calls',
  summary: 'Caller call log',
  description: 'The most recent 100 calls of a caller with token outcomes (real/dead, FDV), the true total and a truncation flag, plus the measured record.',
  tags: ['social'],
  params: z.object({ handle: Handle }),
  response: z.object({ data: z.object({ measured: CallerRecordView, calls: z.array(CallView), total: z.number().int(), truncated: z.boolean() }) }),
  access: { kind: 'paid', price: '0.02' },
  async handler({ params, deps }) {
    const c = await deps.social.caller(params.handle)
    const list = c ? await callsOf(deps, params.handle, CALL_LOG_LIMIT) : []
    const tokens = await deps.tokens.tokens(list.map((x) => x.token))
    const total = c?.calls ?? 0
    return {
      data: {
        measured: callerRecordView(params.handle, c),
        calls: list.map((x) => callView(x, tokens)),
        total,
        truncated: total > CALL_LOG_LIMIT,
      },
    }
  },
})

export const callersEndpoint = defineEndpoint<ApiDeps>()({
  method: 'GET',
  path: '/callers',
  summary: 'Measured callers',
  description: 'Measured callers (4+ graded calls) ranked by caller score. chain=solana or chain=base gives the mirrored cross-chain records instead of chain 4663.',
  tags: ['social'],
  query: z.object({ chain: z.enum(['solana', 'base']).optional() }),
  response: z.object({
    data: z.object({
      chain: z.string(),
      callers: z.array(z.object({ rank: z.number().int(), handle: z.string(), calls: z.number().int(), early_rate: z.number(), momentum_rate: z.number(), median_return_1h: z.number().nullable(), score: z.number().int().nullable(), grade: z.string().nullable() }).passthrough()),
    }),
  }),
  access: { kind: 'paid', price: '0.01' },
  tool: { name: 'svc_callers' },
  async handler({ query, deps }) {
    if (query.chain) {
      const mirrored = (await deps.social.mirrors(query.chain)).map((m, i) => ({ rank: i + 1, handle: m.handle, calls: m.calls, early_rate: m.early_rate, momentum_rate: m.momentum_rate, median_return_1h: m.median_return_1h, score: m.score, grade: gradeOf(m.score), updated_at: m.updated_at }))
      return { data: { chain: query.chain, callers: mirrored } }
    }
    const ranked = (await deps.social.ranked()).map((c, i) => ({ rank: i + 1, ...callerRecordView(c.handle, c) }))
    return { data: { chain: '4663', callers: ranked } }
  },
})
