import { z } from 'zod'
import { Address, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { TokenView, tokenView } from './token-view.ts'
import { renderOnce } from '../../core/serving/rendered-json.ts'
import type { DeployerRecord } from './deployer-state.ts'
import type { TokenRecord } from './token-state.ts'
import type { TokenServing } from './token-serving.ts'

export const tokenEndpoint = defineEndpoint<Uses<'tokens'>>()({
  method: 'GET',
  path: '/token/{address}',
  summary: 'Token stats',
  description:
    'Swap count, WETH volume (exact wei), unique traders, is_real with the exact block it was crossed, dead status, the latest price/FDV quote with its observation time, launch facts and the linked deployer score, on chain 4663. Unknown tokens answer found:false.',
  tags: ['token'],
  params: z.object({ address: Address }),
  response: z.object({ data: TokenView, ...Measured }),
  access: { kind: 'paid', price: '0.01' },
  tool: { name: 'svc_token' },
  kept({ params, deps }) {
    const kept = deps.tokens.keptToken(params.address)
    return kept && tokenAnswer(params.address, kept.token, kept.deployer, deps.tokens)
  },
  async handler({ params, deps }) {
    const t = await deps.tokens.token(params.address)
    const d = t?.deployer ? await deps.tokens.deployer(t.deployer) : undefined
    return tokenAnswer(params.address, t, d, deps.tokens)
  },
})

function tokenAnswer(address: string, t: TokenRecord | undefined, d: DeployerRecord | undefined, tokens: Pick<TokenServing, 'chainId' | 'measuredThrough'>) {
  const data = keptTokenView(address, t, d)
  const through = tokens.measuredThrough()
  if (!t) return { data, chain_id: tokens.chainId, measured_through_block: through }
  // A kept view's whole answer, made once per watermark and its bytes with it (rendered-json.ts).
  const memo = answers.get(data)
  if (memo && memo.answer.measured_through_block === through && memo.answer.chain_id === tokens.chainId) return memo.answer
  const answer = renderOnce({ data, chain_id: tokens.chainId, measured_through_block: through })
  answers.set(data, { answer })
  return answer
}

const answers = new WeakMap<object, { answer: { data: ReturnType<typeof tokenView>; chain_id: number; measured_through_block: number | null } }>()

const views = new WeakMap<TokenRecord, { address: string; d: DeployerRecord | undefined; view: ReturnType<typeof tokenView> }>()

/**
 * A kept token's view, made once per record (the token serving makes a new record when its row
 * or the chain time changes) and rendered to JSON once (core/serving/rendered-json.ts).
 */
function keptTokenView(address: string, t: TokenRecord | undefined, d: DeployerRecord | undefined): ReturnType<typeof tokenView> {
  if (!t) return tokenView(address, t, d)
  const memo = views.get(t)
  if (memo && memo.address === address && memo.d === d) return memo.view
  const view = renderOnce(tokenView(address, t, d))
  views.set(t, { address, d, view })
  return view
}
