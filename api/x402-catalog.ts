import { PAYMENT_ASSET, PAYMENT_NETWORK, USDC_BASE, USDC_DECIMALS, X402_SCHEME, X402_VERSION } from '../core/payment-terms.ts'
import { usdToAtomic } from './catalog/pricing.ts'
import type { AnyEndpoint } from '../core/endpoint/types.ts'

/**
 * The machine-readable payment catalog served at /.well-known/x402 (catalog version 2):
 * every paid and mixed endpoint with its price, generated from the endpoint catalog.
 */
export function buildX402Catalog(catalog: AnyEndpoint[], payTo: string | undefined, asset: string = USDC_BASE): Record<string, unknown> {
  return {
    version: 2,
    x402Version: X402_VERSION,
    scheme: X402_SCHEME,
    network: PAYMENT_NETWORK,
    asset: { symbol: PAYMENT_ASSET, address: asset, decimals: USDC_DECIMALS },
    payTo: payTo ?? null,
    paymentHeaders: { request: ['PAYMENT-SIGNATURE', 'X-Payment'], required: 'PAYMENT-REQUIRED', response: 'PAYMENT-RESPONSE' },
    resources: catalog
      .filter((e) => e.access.kind === 'paid' || e.access.kind === 'mixed')
      .map((e) => {
        const a = e.access as Extract<AnyEndpoint['access'], { price: string }>
        return {
          method: e.method,
          path: e.path,
          description: e.summary,
          price: a.price,
          amount: usdToAtomic(a.price),
          ...(a.kind === 'mixed' ? { freePerDay: a.freePerDay } : {}),
          ...(a.note ? { note: a.note } : {}),
          ...(e.tool ? { mcpTool: e.tool.name } : {}),
          served: Boolean(e.handler),
        }
      }),
  }
}
