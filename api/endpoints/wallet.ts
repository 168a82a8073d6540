import { z } from 'zod'
import { Address, Measured } from '../catalog/schemas.ts'
import { defineEndpoint } from '../catalog/types.ts'
import type { Uses } from '../deps.ts'
import { DeployerView, deployerView } from '../views/deployer.ts'

export const walletEndpoint = defineEndpoint<Uses<'tokens'>>()({
  method: 'GET',
  path: '/wallet/{address}',
  summary: 'Wallet record',
  description:
    "A wallet's deployer record (launched, real, dead, best token, insider-prep flag, score). The insider-flow history (off-market supply acquired, WETH realized, share of flagged wallets) is added with the holder-structure products.",
  tags: ['wallet'],
  params: z.object({ address: Address }),
  response: z.object({ data: z.object({ wallet: z.string(), deployer_record: DeployerView }), ...Measured }),
  access: { kind: 'free' },
  tool: { name: 'svc_wallet' },
  async handler({ params, deps }) {
    const d = await deps.tokens.deployer(params.address)
    return {
      data: { wallet: params.address, deployer_record: deployerView(params.address, d) },
      chain_id: deps.tokens.chainId,
      measured_through_block: deps.tokens.measuredThrough(),
    }
  },
})
