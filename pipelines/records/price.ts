import { z } from 'zod'

/**
 * One bus message per pair and minute on `prices.<pair>` (ETH/USD: `prices.eth_usd`): a
 * one-minute OHLC candle. Prices are decimal strings (never floats on the bus) with at most
 * 8 decimals; `minute` is the unix second the minute starts at.
 */
export const PriceDecimal = z.string().regex(/^(0|[1-9]\d*)(\.\d{1,8})?$/, 'decimal string with at most 8 decimals')
const decimal = PriceDecimal

/** An OHLC candle's prices are consistent: low <= open, close <= high. */
export function ohlcConsistent(c: { open: string; high: string; low: string; close: string }): boolean {
  const [o, h, l, cl] = [Number(c.open), Number(c.high), Number(c.low), Number(c.close)]
  return l <= o && l <= cl && o <= h && cl <= h
}

export const PricePair = z.enum(['ETH/USD', 'SOL/USD'])
export type PricePair = z.infer<typeof PricePair>

export const PriceCandle = z
  .object({
    pair: PricePair,
    minute: z.number().int().nonnegative().multipleOf(60),
    open: decimal,
    high: decimal,
    low: decimal,
    close: decimal,
  })
  .refine(ohlcConsistent, 'low <= open, close <= high')
export type PriceCandle = z.infer<typeof PriceCandle>
