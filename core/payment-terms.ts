/**
 * What every paid call is settled in, declared once: the 402 requirements, the payment checks,
 * /.well-known/x402, the OpenAPI extensions, the error texts and the CLI all read these.
 */

/** The x402 protocol version spoken (PAYMENT-REQUIRED / PAYMENT-SIGNATURE headers). */
export const X402_VERSION = 2
/** The one payment scheme accepted: a signed EIP-3009 transfer of the exact price. */
export const X402_SCHEME = 'exact'
/** Base mainnet; the local payments chain reports the same id so requirements read alike. */
export const PAYMENT_CHAIN_ID = 8453
/** The payment network in CAIP-2 form. */
export const PAYMENT_NETWORK = `eip155:${PAYMENT_CHAIN_ID}`
/** The payment asset's symbol as clients are told it. */
export const PAYMENT_ASSET = 'USDC'
/** USDC on Base, the asset unless X402_ASSET names another (the local test token). */
export const USDC_BASE = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'
export const USDC_DECIMALS = 6
/** EIP-712 domain of USDC on Base (and of the test token). */
export const USDC_EIP712 = { name: 'USD Coin', version: '2' } as const
