import { z } from 'zod'
import { VERDICT_RULES_MARKDOWN } from './verdict.ts'
import { Address, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { VerdictReasonView, VerdictSignalsView, VerdictView, verdictSignalsView, verdictView } from './verdict-view.ts'
import { keptTokenVerdictSignals, tokenVerdictSignals, VERDICT_KEPT_TOKENS } from './verdict-signals-serving.ts'
import { KeptByInputs } from '../../core/serving/kept-by-inputs.ts'
import { renderOnce } from '../../core/serving/rendered-json.ts'
import type { DeployerRecord, TokenRecord, TokenServing } from '../token/token-serving.ts'
import type { VerdictSignals } from './verdict.ts'

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
  kept({ params, deps }) {
    const kept = deps.tokens.keptToken(params.token)
    if (!kept) return undefined
    const { token: t, deployer: d } = kept
    if (!t) return withEnvelope(verdictAnswer(params.token, t, d, undefined), deps.tokens)
    const signals = keptTokenVerdictSignals(deps, t)
    return signals && keptWhole(params.token, keptVerdict(params.token, t, d, signals), deps.tokens)
  },
  async handler({ params, deps }) {
    const t = await deps.tokens.token(params.token)
    const signals = t ? await tokenVerdictSignals(deps, t) : undefined
    const d = t?.deployer ? await deps.tokens.deployer(t.deployer) : undefined
    return t && signals ? keptWhole(params.token, keptVerdict(params.token, t, d, signals), deps.tokens) : withEnvelope(verdictAnswer(params.token, t, d, signals), deps.tokens)
  },
})

type Measures = Pick<TokenServing, 'chainId' | 'measuredThrough'>

/** An answer with the chain and the block it was measured through. */
const withEnvelope = <V extends object>(v: V, tokens: Measures) => ({ ...v, chain_id: tokens.chainId, measured_through_block: tokens.measuredThrough() })

const wholes = new KeptByInputs<ReturnType<typeof withEnvelope<ReturnType<typeof verdictAnswer>>>>(VERDICT_KEPT_TOKENS)

/** A kept verdict's whole answer, made once per verdict and watermark and written to JSON once (rendered-json.ts). */
function keptWhole(token: string, v: ReturnType<typeof verdictAnswer>, tokens: Measures) {
  return wholes.get(token, [v, tokens.measuredThrough()], () => renderOnce(withEnvelope(v, tokens)))
}

/** A verdict answer without its envelope: the signal, its confidence and the data behind them. */
function verdictAnswer(token: string, t: TokenRecord | undefined, d: DeployerRecord | undefined, signals: VerdictSignals | undefined) {
  const v = verdictView(t, d, signals)
  const data = { token, found: Boolean(t), symbol: t?.symbol || null, deployer: t?.deployer ?? null, reasons: v.reasons, signals: verdictSignalsView(signals) }
  return { signal: v.signal, confidence: v.confidence, data }
}

const verdicts = new KeptByInputs<ReturnType<typeof verdictAnswer>>(VERDICT_KEPT_TOKENS)

/**
 * A tracked token's verdict, decided once per token record, deployer record and signals (each a
 * new object when it changes) and written to JSON once (core/serving/rendered-json.ts).
 */
function keptVerdict(token: string, t: TokenRecord, d: DeployerRecord | undefined, signals: VerdictSignals) {
  return verdicts.get(token, [t, d, signals], () => {
    const answer = verdictAnswer(token, t, d, signals)
    renderOnce(answer.data)
    return answer
  })
}
