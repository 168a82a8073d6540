import { z } from 'zod'
import { INSIDER_FLOW_TOKENS_LIMIT } from './insider-flow.ts'
import { BlockNumber, Wei } from '../../core/endpoint/schemas.ts'

/** The insider-flow part of GET /wallet/{address} (products/wallet/insider-flow.ts computes it). */
export const InsiderFlowView = z
  .object({
    tokens: z
      .array(
        z.object({
          token: z.string(),
          acquired_wei: Wei.meta({ description: "received before the token's first swap from anyone but its pools (mints included)" }),
          receipts: z.number().int(),
          first_block: BlockNumber,
          sold_wei: Wei.meta({ description: 'token quantity the wallet sold in swaps' }),
          weth_realized_wei: Wei.meta({ description: 'WETH the wallet received from its sells of the token' }),
        }),
      )
      .meta({ description: `tokens the wallet acquired off-market, the largest first (at most ${INSIDER_FLOW_TOKENS_LIMIT})` }),
    tokens_total: z.number().int(),
    weth_realized_wei: Wei.meta({ description: 'WETH realized selling every token it acquired off-market' }),
    counterparties: z
      .object({ total: z.number().int(), flagged: z.number().int(), flagged_percent: z.number().meta({ description: 'flagged / total × 100, 2 decimals' }) })
      .meta({ description: 'distinct wallets it exchanged tokens with directly (pools and the zero address left out); flagged: a deployer with the insider-prep flag, or a wallet the snapshot archive labelled insider' }),
  })
  .meta({ description: 'off-market supply acquired, WETH realized from selling it, and the share of flagged counterparties' })
