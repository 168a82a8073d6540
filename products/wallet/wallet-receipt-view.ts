import { z } from 'zod'
import {
  claimWindow,
  HOLD_LABELS,
  holdLabel,
  mulDiv,
  reconcilingEthUsd,
  weth,
  type RosterClaim,
  type TokenPosition,
} from './wallet-receipt.ts'

/** Signed wei: an exact decimal string that may be negative (a loss). */
const SignedWei = z.string().regex(/^-?\d+$/).meta({ description: 'exact signed amount in wei, as a decimal string' })
const Wei = z.string().regex(/^\d+$/).meta({ description: 'exact amount in wei, as a decimal string' })

const Mark = z.object({
  value_wei: Wei,
  value_weth: z.number(),
  unrealized_wei: SignedWei.meta({ description: 'value - open cost' }),
  unrealized_weth: z.number(),
})

const OpenMarks = z.object({
  positions: z.number().int().meta({ description: 'tokens with open lots' }),
  open_cost_wei: Wei.meta({ description: 'FIFO cost of the open lots' }),
  open_cost_weth: z.number(),
  last_close: Mark.meta({ description: "open quantity marked at each token's latest swap price (a token without a swap is marked at zero)" }),
  zero: Mark.meta({ description: 'open quantity marked at zero' }),
})

const TokenReceipt = z.object({
  token: z.string(),
  realized_net_wei: SignedWei,
  realized_net_weth: z.number(),
  win_rate: z.number().nullable(),
  winning_sells: z.number().int(),
  sells: z.number().int(),
  unmatched_sell_qty: Wei.meta({ description: 'token quantity sold without an open lot (matched at zero cost)' }),
  spent_wei: Wei.meta({ description: 'WETH paid for buys' }),
  received_wei: Wei.meta({ description: 'WETH received for sells' }),
  open_qty: Wei.meta({ description: 'token quantity in open lots (smallest unit)' }),
  open_cost_wei: Wei,
  last_close_price_weth: z.number().nullable().meta({ description: 'WETH per token unit at the latest swap (smallest units), null without a swap' }),
  last_close_block: z.number().int().nullable(),
  open_value_last_close_wei: Wei,
  median_hold_seconds: z.number().nullable(),
  closed_lots: z.number().int(),
})

const LeaderboardClaimView = z.object({
  source: z.string(),
  rank: z.number().int(),
  claimed_pnl_usd_30d: z.number(),
  claimed_at: z.string().meta({ description: 'ISO 8601; the 30-day window ends here' }),
  window_from: z.string().meta({ description: 'ISO 8601; start of the 30-day window (exclusive)' }),
  measured_realized_30d_wei: SignedWei.meta({ description: 'our FIFO realized result of the sells in the window' }),
  measured_realized_30d_weth: z.number(),
  measured_sells_30d: z.number().int(),
  reconciling_eth_usd: z.number().nullable().meta({ description: 'ETH/USD price at which the claim equals the measured result; null when no price can' }),
  eth_usd_30d: z.object({ low: z.number(), high: z.number() }).nullable().meta({ description: 'actual ETH/USD range over the window, from the candles; null without candles' }),
  reconciling_price_in_range: z.boolean().nullable(),
})

export const WalletReceiptData = z.object({
  wallet: z.string(),
  found: z.boolean().meta({ description: 'false for a wallet outside the tracked roster (the latest leaderboard)' }),
  measured_through_block: z.number().int().nullable(),
  realized_net_weth: z.number().nullable().meta({ description: 'FIFO realized PnL over v2/v3/v4 swaps, WETH; routed hops valued at the hop' }),
  realized_net_wei: SignedWei.nullable(),
  win_rate: z.number().nullable().meta({ description: 'sells with realized > 0 / all sells (partial exits count); null without sells' }),
  winning_sells: z.number().int().nullable(),
  sells: z.number().int().nullable(),
  sells_with_unmatched: z.number().int().nullable().meta({ description: 'sells that had quantity without an open lot' }),
  spent_wei: Wei.nullable(),
  received_wei: Wei.nullable(),
  open_marks: OpenMarks.nullable(),
  leaderboard_claim: LeaderboardClaimView.nullable(),
  hold_style: z.object({ median_hold_seconds: z.number().nullable(), closed_lots: z.number().int(), label: z.enum(HOLD_LABELS).nullable() }).nullable(),
  per_token: z.array(TokenReceipt).nullable(),
})
export type WalletReceiptData = z.infer<typeof WalletReceiptData>

/** What the figures of a tracked wallet are built from (products/wallet/wallet-receipt.ts reads). */
export interface ReceiptInputs {
  positions: TokenPosition[]
  holds: { all: { median: number | null; lots: number }; byToken: Map<string, { median: number | null; lots: number }> }
  sellsWithUnmatched: number
  claim: RosterClaim
  measured30d: { wei: bigint; sells: number }
  ethUsd30d: { low: number; high: number } | null
}

const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(/\.000Z$/, 'Z')
const winRate = (wins: number, sells: number) => (sells > 0 ? wins / sells : null)

/** A wallet outside the roster. */
export function notFoundReceipt(wallet: string, measuredThrough: number | null): WalletReceiptData {
  return {
    wallet, found: false, measured_through_block: measuredThrough, realized_net_weth: null, realized_net_wei: null, win_rate: null, winning_sells: null, sells: null,
    sells_with_unmatched: null, spent_wei: null, received_wei: null, open_marks: null, leaderboard_claim: null, hold_style: null, per_token: null,
  }
}

export function receiptView(wallet: string, measuredThrough: number | null, r: ReceiptInputs): WalletReceiptData {
  let realized = 0n
  let sells = 0
  let wins = 0
  let spent = 0n
  let received = 0n
  let openCost = 0n
  let lastCloseValue = 0n
  let positions = 0
  const perToken = r.positions.map((p) => {
    const value = p.lastSwap ? mulDiv(p.openQty, p.lastSwap.weth, p.lastSwap.token) : 0n
    realized += p.realizedWei
    sells += p.sells
    wins += p.winningSells
    spent += p.spentWei
    received += p.receivedWei
    openCost += p.openCostWei
    lastCloseValue += value
    if (p.openLots > 0) positions++
    const h = r.holds.byToken.get(p.token)
    return {
      token: p.token,
      realized_net_wei: p.realizedWei.toString(),
      realized_net_weth: weth(p.realizedWei),
      win_rate: winRate(p.winningSells, p.sells),
      winning_sells: p.winningSells,
      sells: p.sells,
      unmatched_sell_qty: p.unmatchedQty.toString(),
      spent_wei: p.spentWei.toString(),
      received_wei: p.receivedWei.toString(),
      open_qty: p.openQty.toString(),
      open_cost_wei: p.openCostWei.toString(),
      last_close_price_weth: p.lastSwap ? Number(p.lastSwap.weth) / Number(p.lastSwap.token) : null,
      last_close_block: p.lastSwap?.block ?? null,
      open_value_last_close_wei: value.toString(),
      median_hold_seconds: h?.median ?? null,
      closed_lots: h?.lots ?? 0,
    }
  })
  const mark = (value: bigint) => ({ value_wei: value.toString(), value_weth: weth(value), unrealized_wei: (value - openCost).toString(), unrealized_weth: weth(value - openCost) })
  const c = r.claim
  const reconciling = reconcilingEthUsd(c.claimedPnlUsd30d, r.measured30d.wei)
  return {
    wallet,
    found: true,
    measured_through_block: measuredThrough,
    realized_net_weth: weth(realized),
    realized_net_wei: realized.toString(),
    win_rate: winRate(wins, sells),
    winning_sells: wins,
    sells,
    sells_with_unmatched: r.sellsWithUnmatched,
    spent_wei: spent.toString(),
    received_wei: received.toString(),
    open_marks: { positions, open_cost_wei: openCost.toString(), open_cost_weth: weth(openCost), last_close: mark(lastCloseValue), zero: mark(0n) },
    leaderboard_claim: {
      source: c.source,
      rank: c.rank,
      claimed_pnl_usd_30d: c.claimedPnlUsd30d,
      claimed_at: iso(c.claimedAt),
      window_from: iso(claimWindow(c).from),
      measured_realized_30d_wei: r.measured30d.wei.toString(),
      measured_realized_30d_weth: weth(r.measured30d.wei),
      measured_sells_30d: r.measured30d.sells,
      reconciling_eth_usd: reconciling,
      eth_usd_30d: r.ethUsd30d,
      reconciling_price_in_range: reconciling === null || r.ethUsd30d === null ? null : reconciling >= r.ethUsd30d.low && reconciling <= r.ethUsd30d.high,
    },
    hold_style: { median_hold_seconds: r.holds.all.median, closed_lots: r.holds.all.lots, label: holdLabel(r.holds.all.median) },
    per_token: perToken,
  }
}
