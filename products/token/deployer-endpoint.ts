import { z } from 'zod'
import { SCORE_BAND_NAMES } from './deployer-score.ts'
import { Address, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { DeployerHistoryView, deployerHistoryView } from './deployer-view.ts'

export const deployerEndpoint = defineEndpoint<Uses<'tokens'>>()({
  method: 'GET',
  path: '/deployer/{address}',
  summary: 'Deployer reputation',
  description:
    'Launched, real and dead token counts, best-token volume, the insider-prep distribution flag and a 0-100 score with its band (signal), plus the launch history (newest 100, with the true total). Unknown addresses answer found:false.',
  tags: ['deployer'],
  params: z.object({ address: Address }),
  response: z.object({
    signal: z.enum([...SCORE_BAND_NAMES, 'unknown']).meta({ description: 'the score band; unknown without launches' }),
    data: DeployerHistoryView,
    ...Measured,
  }),
  access: { kind: 'paid', price: '0.01' },
  tool: { name: 'svc_deployer' },
  async handler({ params, deps }) {
    const d = await deps.tokens.deployerHistory(params.address)
    return {
      signal: d?.band ?? ('unknown' as const),
      data: deployerHistoryView(params.address, d),
      chain_id: deps.tokens.chainId,
      measured_through_block: deps.tokens.measuredThrough(),
    }
  },
})
