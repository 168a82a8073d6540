import { z } from 'zod'
import { HOLD_LABELS, holdLabel } from './wallet-receipt.ts'
import { MICRO_USD_PER_USD } from './solana-units.ts'
import { SolanaAddress } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { iso } from '../social/caller-view.ts'

const usd = (micro: bigint) => Number(micro) / Number(MICRO_USD_PER_USD)

export const solanaReceiptEndpoint = defineEndpoint<Uses<'solana'>>()({
  method: 'GET',
  path: '/solana/wallet-receipt/{address}',
  summary: 'Wallet receipt (Solana)',
  description:
    "FIFO realized PnL in USD, win rate, open cost and hold style of a wallet of the Solana venue's universe (45,504 wallets); found:false outside it (still one paid call). Buys open lots at their USD cost, sells close them first in, first out; a SOL leg is valued at the close of the 5-minute SOL/USD candle of its trade, rounded down to the micro-USD. measured_through is the block time the venue's trades are ingested through.",
  tags: ['wallet'],
  params: z.object({ address: SolanaAddress }),
  response: z.object({
    data: z.object({
      wallet: z.string(),
      found: z.boolean(),
      realized_net_usd: z.number().nullable().meta({ description: 'FIFO realized PnL over every sell, USD' }),
      realized_net_micro_usd: z.string().nullable().meta({ description: 'the same, exact, in micro-USD (decimal string)' }),
      win_rate: z.number().nullable().meta({ description: 'sells with realized PnL above zero ÷ all sells (partial exits count); null without sells' }),
      winning_sells: z.number().int().nullable(),
      sells: z.number().int().nullable(),
      unmatched_sells: z.number().int().nullable().meta({ description: 'sells with quantity not covered by open lots (that part has zero cost)' }),
      open_cost_usd: z.number().nullable().meta({ description: 'cost of the positions still open, USD' }),
      open_cost_micro_usd: z.string().nullable(),
      median_hold_seconds: z.number().nullable().meta({ description: 'median hold of the lots closed by sells' }),
      style: z.enum(HOLD_LABELS).nullable().meta({ description: 'scalper: median hold under 1 h; swing: under 7 days; holder: beyond' }),
      trades: z.number().int().nullable(),
    }),
    measured_through: z.string().nullable().meta({ description: 'block time (ISO 8601) the venue trades are ingested through' }),
  }),
  access: { kind: 'paid', price: '0.03' },
  async handler({ params, deps }) {
    const wallet = params.address
    const [r, through] = await Promise.all([deps.solana.receipt(wallet), deps.solana.measuredThrough()])
    const measured_through = through === null ? null : iso(through)
    if (!r.found) {
      return {
        data: {
          wallet, found: false, realized_net_usd: null, realized_net_micro_usd: null, win_rate: null, winning_sells: null, sells: null,
          unmatched_sells: null, open_cost_usd: null, open_cost_micro_usd: null, median_hold_seconds: null, style: null, trades: null,
        },
        measured_through,
      }
    }
    return {
      data: {
        wallet,
        found: true,
        realized_net_usd: usd(r.realizedMicroUsd),
        realized_net_micro_usd: r.realizedMicroUsd.toString(),
        win_rate: r.sells > 0 ? r.winningSells / r.sells : null,
        winning_sells: r.winningSells,
        sells: r.sells,
        unmatched_sells: r.unmatchedSells,
        open_cost_usd: usd(r.openCostMicroUsd),
        open_cost_micro_usd: r.openCostMicroUsd.toString(),
        median_hold_seconds: r.medianHoldSeconds,
        style: holdLabel(r.medianHoldSeconds),
        trades: r.trades,
      },
      measured_through,
    }
  },
})
