import { z } from 'zod'
import { Address, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { WalletReceiptData } from './wallet-receipt-view.ts'
import type { ReceiptServing } from './receipt-serving.ts'

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
  kept({ params, deps }) {
    const data = deps.receipts.keptReceipt(params.address)
    return data && receiptAnswer(data, deps.receipts)
  },
  async handler({ params, deps }) {
    return receiptAnswer(await deps.receipts.receipt(params.address), deps.receipts)
  },
})

/** The envelope of a receipt: its chain and the block it states (a kept receipt's bytes are spliced in, rendered-json.ts). */
const receiptAnswer = (data: WalletReceiptData, receipts: Pick<ReceiptServing, 'chainId'>) => ({ data, chain_id: receipts.chainId, measured_through_block: data.measured_through_block })
