import { z } from 'zod'
import { Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { DeployerView, deployerView } from './deployer-view.ts'

const LEADERBOARD_SIZE = 100

export const leaderboardEndpoint = defineEndpoint<Uses<'tokens'>>()({
  method: 'GET',
  path: '/leaderboard',
  summary: 'Deployer leaderboard',
  description: 'The top 100 deployers ranked by score, then real tokens, then launches, with their best token.',
  tags: ['deployer'],
  response: z.object({ data: z.object({ deployers: z.array(DeployerView.extend({ rank: z.number().int() })), total: z.number().int() }), ...Measured }),
  access: { kind: 'paid', price: '0.01' },
  tool: { name: 'svc_leaderboard' },
  async handler({ deps }) {
    const { deployers, total } = await deps.tokens.leaderboard(LEADERBOARD_SIZE)
    return {
      data: { deployers: deployers.map((d, i) => ({ rank: i + 1, ...deployerView(d.deployer, d) })), total },
      chain_id: deps.tokens.chainId,
      measured_through_block: deps.tokens.measuredThrough(),
    }
  },
})
