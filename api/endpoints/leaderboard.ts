import { z } from 'zod'
import { Measured } from '../catalog/schemas.ts'
import { defineEndpoint } from '../catalog/types.ts'
import { DeployerView, deployerView } from '../serving/views.ts'

const LEADERBOARD_SIZE = 100

export const leaderboardEndpoint = defineEndpoint({
  method: 'GET',
  path: '/leaderboard',
  summary: 'Deployer leaderboard',
  description: 'The top 100 deployers ranked by score, then real tokens, then launches, with their best token.',
  tags: ['deployer'],
  response: z.object({ data: z.object({ deployers: z.array(DeployerView.extend({ rank: z.number().int() })), total: z.number().int() }), ...Measured }),
  access: { kind: 'paid', price: '0.01' },
  tool: { name: 'svc_leaderboard' },
  async handler({ deps }) {
    const book = await deps.books.get()
    const ranked = [...book.deployers.values()].sort(
      (a, b) => (b.score ?? -1) - (a.score ?? -1) || b.real - a.real || b.launched - a.launched || (a.deployer < b.deployer ? -1 : 1),
    )
    return {
      data: {
        deployers: ranked.slice(0, LEADERBOARD_SIZE).map((d, i) => ({ rank: i + 1, ...deployerView(d.deployer, d) })),
        total: ranked.length,
      },
      chain_id: book.chainId,
      measured_through_block: book.measuredThrough,
    }
  },
})
