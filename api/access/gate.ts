import { timingSafeEqual } from 'node:crypto'
import type { Store } from '../../core/store/types.ts'
import { ApiError } from '../errors.ts'
import { priceOf } from '../catalog/pricing.ts'
import type { AnyEndpoint, RequestInfo } from '../catalog/types.ts'

/** What admitted a call, and how to complete it once the handler has succeeded. */
export interface AccessGrant {
  via: 'free' | 'admin' | 'key' | 'payment' | 'free_quota'
  /** USD price this call is charged, or null. */
  price: string | null
  /**
   * Settle the charge; runs only after the handler succeeded, and its failure means no data
   * is served. Returns headers to add to the response (e.g. PAYMENT-RESPONSE).
   */
  settle?(): Promise<Record<string, string>>
}

/**
 * The single access hook every catalog route and MCP tool goes through. It decides before
 * the handler runs (throwing 401/402/429 as ApiError) and settles after it succeeds.
 */
export interface AccessGate {
  admit(endpoint: AnyEndpoint, query: Record<string, unknown>, request: RequestInfo): Promise<AccessGrant>
}

export function header(request: RequestInfo, name: string): string | undefined {
  const v = request.headers[name.toLowerCase()]
  return Array.isArray(v) ? v[0] : v
}

function bearer(request: RequestInfo): string | undefined {
  const auth = header(request, 'authorization')
  return auth?.startsWith('Bearer ') ? auth.slice(7).trim() : undefined
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * A fixed one-minute window per endpoint and IP, counted in the store (shared by every API
 * process when it is Redis). Over the cap: 429 with the seconds left in the window.
 */
async function enforcePerMinute(store: Store, endpoint: AnyEndpoint, ip: string, cap: number): Promise<void> {
  const window = Math.floor(Date.now() / 60_000)
  const key = `rate:${endpoint.method}:${endpoint.path}:${ip}:${window}`
  const used = await store.incr(key, 1, 60_000)
  if (used > cap) {
    const retryAfter = String(Math.max(1, 60 - Math.floor((Date.now() % 60_000) / 1000)))
    throw new ApiError('rate_limited', `At most ${cap} requests per minute per IP; retry in ${retryAfter} s.`, { limit: cap, window_seconds: 60 }, { 'retry-after': retryAfter })
  }
}

/**
 * The gate until x402 settlement and subscription keys are wired (the access issue): free
 * endpoints are open; the operator's admin token (SVC_ADMIN_TOKEN as a bearer) is admitted
 * everywhere; every other paid or key call fails closed with 402 or 401, so paid data is never
 * served unpaid.
 */
export function createClosedGate(adminToken: string | undefined, store: Store): AccessGate {
  return {
    async admit(endpoint, query, request) {
      const price = priceOf(endpoint.access, query)
      if (endpoint.access.kind === 'free') {
        if (endpoint.access.perMinute) await enforcePerMinute(store, endpoint, request.ip, endpoint.access.perMinute)
        return { via: 'free', price: null }
      }
      if (endpoint.access.kind === 'paid' && price === null) return { via: 'free', price: null }
      const token = bearer(request)
      if (adminToken && token && sameSecret(token, adminToken)) return { via: 'admin', price: null }
      if (endpoint.access.kind === 'key') {
        throw new ApiError(token || header(request, 'x-svc-key') ? 'invalid_key' : 'missing_key')
      }
      throw new ApiError('payment_required', undefined, { price_usd: price, network: 'eip155:8453', asset: 'USDC' })
    },
  }
}
