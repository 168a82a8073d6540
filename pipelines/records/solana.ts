import { z } from 'zod'
import { ohlcConsistent, PriceDecimal } from './price.ts'
import { LAMPORTS_PER_SOL, MICRO_USD_PER_USD, PRICE_E8 } from '../../products/wallet/solana-units.ts'

/**
 * The Solana venue's records. Amounts are integers in the smallest unit, as decimal strings
 * (never floats on the bus): token quantities in the mint's raw units, SOL legs in lamports
 * (1 SOL = 10^9), USD legs in micro-USD (1 USD = 10^6, a USDC unit). Prices are decimal strings
 * with at most 8 decimals.
 */
const base58 = (what: string) => z.string().regex(/^[1-9A-HJ-NP-Za-km-z]+$/, `${what}: base58`)
const wallet = base58('address').min(32).max(44)
const units = z.string().regex(/^(0|[1-9]\d{0,75})$/, 'an integer in the smallest unit, as a decimal string')
const positiveUnits = units.refine((s) => s !== '0', 'greater than 0')
const price = PriceDecimal

/** Seconds in one SOL/USD candle. */
export const SOL_CANDLE_SECONDS = 300

/**
 * One trade of a universe wallet on `solana.trades`: `side` buy (token in, quote out of the
 * wallet) or sell (token out, quote in). The quote leg is SOL (`quote_amount` in lamports) or
 * USD (micro-USD). Natural key: (signature, mint, side).
 */
export const SolanaTrade = z.object({
  signature: base58('signature').min(64).max(88),
  slot: z.number().int().nonnegative(),
  block_time: z.number().int().nonnegative(),
  wallet,
  mint: base58('mint').min(32).max(44),
  side: z.enum(['buy', 'sell']),
  token_qty: positiveUnits,
  quote: z.enum(['SOL', 'USD']),
  quote_amount: units,
})
export type SolanaTrade = z.infer<typeof SolanaTrade>

/** A 5-minute SOL/USD candle on `prices.sol_usd`; `start` is the unix second its window starts at. */
export const SolUsdCandle = z
  .object({
    pair: z.literal('SOL/USD'),
    start: z.number().int().nonnegative().multipleOf(SOL_CANDLE_SECONDS),
    open: price,
    high: price,
    low: price,
    close: price,
  })
  .refine((c) => ohlcConsistent(c) && Number(c.close) > 0, 'low <= open, close <= high; close > 0')
export type SolUsdCandle = z.infer<typeof SolUsdCandle>

/** A wallet of the venue's universe on `solana.universe`: who the venue's receipts are for. */
export const SolanaUniverseMember = z.object({
  wallet,
  venue: z.string().min(1).max(64),
  listed_at: z.number().int().nonnegative(),
})
export type SolanaUniverseMember = z.infer<typeof SolanaUniverseMember>

/** The start of the candle window holding unix second `t`. */
export function candleStart(t: number): number {
  return t - (t % SOL_CANDLE_SECONDS)
}

/** A price decimal string (at most 8 decimals) as an integer count of 1e-8 USD. */
export function priceE8(price: string): bigint {
  const [whole, frac = ''] = price.split('.')
  return BigInt(whole!) * PRICE_E8 + BigInt(frac.padEnd(8, '0'))
}

/**
 * A SOL leg in micro-USD at a candle price: floor(lamports × price_e8 / 10^11), i.e. lamports /
 * 10^9 SOL × price USD, rounded down to the micro-USD (rounding toward zero for amounts >= 0).
 */
export function lamportsToMicroUsd(lamports: bigint, closeE8: bigint): bigint {
  return (lamports * closeE8) / ((LAMPORTS_PER_SOL * PRICE_E8) / MICRO_USD_PER_USD)
}
