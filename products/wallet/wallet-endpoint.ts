import { z } from 'zod'
import { Address, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { DeployerView, deployerView } from '../token/deployer-view.ts'
import { InsiderFlowView } from './insider-flow-view.ts'
import { insiderFlow } from './insider-flow.ts'

export const walletEndpoint = defineEndpoint<Uses<'tokens' | 'ch' | 'cache' | 'watermarks'>>()({
  method: 'GET',
  path: '/wallet/{address}',
  summary: 'Wallet record',
  description:
    "A wallet's deployer record (launched, real, dead, best token, insider-prep flag, score) and its insider flow: off-market supply acquired per token (received before the token's first swap, not from its pools), the WETH realized selling it, and the share of its direct counterparties that are flagged (a deployer with the insider-prep flag, or a wallet the holder-snapshot archive labelled insider).",
  tags: ['wallet'],
  params: z.object({ address: Address }),
  response: z.object({ data: z.object({ wallet: z.string(), deployer_record: DeployerView, insider_flow: InsiderFlowView }), ...Measured }),
  access: { kind: 'free' },
  tool: { name: 'svc_wallet' },
  async handler({ params, deps }) {
    const [d, flow] = await Promise.all([
      deps.tokens.deployer(params.address),
      deps.cache.get(`insider-flow:${deps.tokens.chainId}:${params.address}`, deps.watermarks.version(deps.tokens.chainId), () => insiderFlow(deps.ch, deps.tokens.chainId, params.address)),
    ])
    return {
      data: { wallet: params.address, deployer_record: deployerView(params.address, d), insider_flow: flow },
      chain_id: deps.tokens.chainId,
      measured_through_block: deps.tokens.measuredThrough(),
    }
  },
})
