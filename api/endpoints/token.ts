import { z } from 'zod'
import { queryRows } from '../../core/clickhouse.ts'
import { namedQuery } from '../../sql/queries.ts'
import { Address, BlockNumber, Measured, Wei } from '../catalog/schemas.ts'
import { defineEndpoint } from '../catalog/types.ts'

const CHAIN_ID = 4663

const TokenStats = z.object({
  data: z.object({
    token: z.string(),
    found: z.boolean().meta({ description: 'false when the token has neither a recorded launch nor swaps' }),
    deployer: z.string().nullable().meta({ description: 'from of the transaction that created the contract' }),
    created_block: BlockNumber.nullable(),
    created_at: z.string().nullable(),
    swaps: z.number().int().meta({ description: 'swap events against WETH pools' }),
    weth_volume_wei: Wei.meta({ description: 'WETH in plus WETH out over all swaps, exact wei' }),
    unique_traders: z.number().int().meta({ description: 'distinct transaction senders of swaps' }),
    first_swap_block: BlockNumber.nullable(),
    last_swap_block: BlockNumber.nullable(),
    last_swap_at: z.string().nullable(),
  }),
  ...Measured,
})

interface Row {
  n: string
  swaps: string
  weth_volume: string
  traders: string
  first_swap_block: string
  last_swap_block: string
  last_swap_time: string
  created: string
  deployer: string
  created_block: string
  created_at: string
}

export const tokenEndpoint = defineEndpoint({
  method: 'GET',
  path: '/token/{address}',
  summary: 'Token stats',
  description: 'Swap count, WETH volume (exact wei), unique traders and launch facts of a token on chain 4663. Unknown tokens answer found:false.',
  tags: ['token'],
  params: z.object({ address: Address }),
  response: TokenStats,
  access: { kind: 'paid', price: '0.01' },
  tool: { name: 'svc_token' },
  async handler({ params, deps }) {
    const version = deps.watermarks.version(CHAIN_ID)
    return deps.cache.get(`token:${params.address}`, version, async () => {
      const [r] = await queryRows<Row>(deps.ch, namedQuery('token_stats'), { chain: CHAIN_ID, token: params.address })
      const traded = Number(r!.n) > 0
      const created = Number(r!.created) > 0
      return {
        data: {
          token: params.address,
          found: traded || created,
          deployer: created ? r!.deployer : null,
          created_block: created ? Number(r!.created_block) : null,
          created_at: created ? r!.created_at : null,
          swaps: Number(r!.swaps),
          weth_volume_wei: r!.weth_volume,
          unique_traders: Number(r!.traders),
          first_swap_block: traded ? Number(r!.first_swap_block) : null,
          last_swap_block: traded ? Number(r!.last_swap_block) : null,
          last_swap_at: traded ? r!.last_swap_time : null,
        },
        chain_id: CHAIN_ID,
        measured_through_block: deps.watermarks.get(CHAIN_ID),
      }
    })
  },
})
