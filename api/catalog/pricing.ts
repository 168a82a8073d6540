import { USDC_DECIMALS } from '../../core/payment-terms.ts'
import type { Access } from '../../core/endpoint/types.ts'

const PRICE = new RegExp(`^(\\d+)(?:\\.(\\d{1,${USDC_DECIMALS}}))?$`)

/** A USD price string ("0.01") in USDC base units (6 decimals), exactly: "10000". */
export function usdToAtomic(price: string): string {
  const m = PRICE.exec(price)
  if (!m) throw new Error(`price ${price} is not a decimal with at most ${USDC_DECIMALS} places`)
  return (BigInt(m[1]!) * 10n ** BigInt(USDC_DECIMALS) + BigInt((m[2] ?? '').padEnd(USDC_DECIMALS, '0'))).toString()
}

/** The price of one call given its query, or null when the call is free. */
export function priceOf(access: Access, query: Record<string, unknown>): string | null {
  switch (access.kind) {
    case 'paid':
      return access.priceFor ? access.priceFor(query) : access.price
    case 'mixed':
      return access.price
    default:
      return null
  }
}
