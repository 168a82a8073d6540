import { z } from 'zod'
import { Address, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { WalletReceiptData } from './wallet-receipt-view.ts'

export const walletReceiptEndpoint = defineEndpoint<Uses<'receipts'>>()({
  method: 'GET',
  path: '/wallet-receipt/{address}',
  summary: 'Wallet receipt (chain)',
  description:
    "FIFO-matched realized PnL in WETH (exact wei beside it) over Uniswap v2/v3/v4 swaps, win rate on sells (partial exits count), open positions marked at each token's last close and at zero, the leaderboard's 30-day claim with our measured 30-day result, the ETH/USD price that would reconcile them and the actual ETH/USD range, hold style, and the same per token. For the tracked roster (the latest leaderboard, at most 100 wallets); any other wallet answers found:false (still one paid call). Receipts are kept per wallet: right after a batch that changed the wallet, its previous receipt is given (measured_through_block says through which block) while the new one is built.",
  tags: ['wallet'],
  params: z.object({ address: Address }),
  response: z.object({ data: WalletReceiptData, ...Measured }),
  access: { kind: 'paid', price: '0.03' },
  tool: { name: 'svc_wallet_receipt' },
  async handler({ params, deps }) {
    const data = await deps.receipts.receipt(params.address)
    return { data, chain_id: deps.receipts.chainId, measured_through_block: data.measured_through_block }
  },
})
