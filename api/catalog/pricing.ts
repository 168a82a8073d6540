import type { Access } from './types.ts'

/** USDC on Base (eip155:8453), the payment asset of every paid call. */
export const PAYMENT_NETWORK = 'eip155:8453'
export const USDC_BASE = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'
export const USDC_DECIMALS = 6

/** A USD price string ("0.01") in USDC base units (6 decimals), exactly: "10000". */
export function usdToAtomic(price: string): string {
  const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(price)
  if (!m) throw new Error(`price ${price} is not a decimal with at most 6 places`)
  return (BigInt(m[1]!) * 10n ** 6n + BigInt((m[2] ?? '').padEnd(6, '0'))).toString()
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
