import { z } from 'zod'
import { VERDICT_RULES_MARKDOWN } from './verdict.ts'
import { Address, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { VerdictReasonView, VerdictSignalsView, VerdictView, verdictSignalsView, verdictView } from './verdict-view.ts'
import { tokenVerdictSignals } from './verdict-signals-serving.ts'

export const verdictEndpoint = defineEndpoint<Uses<'tokens' | 'ch' | 'social'>>()({
  method: 'GET',
  path: '/verdict/{token}',
  summary: 'Composite buy-risk verdict',
  description: `Buy-risk verdict of a token on chain 4663: signal (low_risk, moderate_risk, high_risk, avoid) and confidence in [0,1], with the reasons (rule codes and the measured values they were decided on). Unknown tokens answer found:false with high_risk, confidence 0 and the reason not_tracked.\n\n${VERDICT_RULES_MARKDOWN}`,
  tags: ['token'],
  params: z.object({ token: Address }),
  response: z.object({
    signal: VerdictView.shape.signal,
    confidence: VerdictView.shape.confidence,
    data: z.object({
      token: z.string(),
      found: z.boolean(),
      symbol: z.string().nullable(),
      deployer: z.string().nullable(),
      reasons: z.array(VerdictReasonView),
      signals: VerdictSignalsView,
    }),
    ...Measured,
  }),
  access: { kind: 'paid', price: '0.02' },
  tool: { name: 'svc_verdict' },
  async handler({ params, deps }) {
    const t = await deps.tokens.token(params.token)
    const signals = t ? await tokenVerdictSignals(deps, t) : undefined
    const v = verdictView(t, t?.deployer ? await deps.tokens.deployer(t.deployer) : undefined, signals)
    return {
      signal: v.signal,
      confidence: v.confidence,
      data: { token: params.token, found: Boolean(t), symbol: t?.symbol || null, deployer: t?.deployer ?? null, reasons: v.reasons, signals: verdictSignalsView(signals) },
      chain_id: deps.tokens.chainId,
      measured_through_block: deps.tokens.measuredThrough(),
    }
  },
})
