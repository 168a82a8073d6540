import { timingSafeEqual } from 'node:crypto'
import { planHas } from '../../core/plans.ts'
import { isDependencyUnavailable } from '../../core/dependency.ts'
import { createMemoryStore } from '../../core/store/memory-store.ts'
import type { Store } from '../../core/store/types.ts'
import { ApiError, unavailableAsApiError } from '../../core/endpoint/errors.ts'
import { priceOf } from '../catalog/pricing.ts'
import type { AnyEndpoint, RequestInfo } from '../../core/endpoint/types.ts'
import { bearer, header } from '../../core/endpoint/request-headers.ts'
import { createFailedLookups } from './failed-lookups.ts'
import type { AccessGrant } from '../../core/endpoint/grant.ts'
import { PAYMENT_ASSET, PAYMENT_NETWORK } from '../../core/payment-terms.ts'
import { looksLikeKey, type KeyRecord, type KeyRegistry } from './keys.ts'
import { CONNECTION_PREFIX, looksLikeConnectionToken, type McpConnector } from './mcp-connector.ts'

/**
 * The single access hook every catalog route and MCP tool goes through. It decides before
 * the handler runs (throwing 401/402/403/429 as ApiError) and settles after it succeeds.
 */
export interface AccessGate {
  /**
   * With `verifyLater`, a payment's grant may come before the facilitator has verified it: its
   * `verify()` then runs before anything is read for the call, or its `settle()` alone, once the
   * answer is at hand (core/endpoint/grant.ts).
   */
  admit(endpoint: AnyEndpoint, query: Record<string, unknown>, request: RequestInfo, opts?: { verifyLater?: boolean }): Promise<AccessGrant>
  /**
   * The grant `admit` would give, when memory alone decides it (a free endpoint without a rate
   * cap, a key verified moments ago on an endpoint its plan covers); undefined when anything else
   * must be decided (then `admit`). The busy path of paid consumers: no promise per call.
   */
  admitNow(endpoint: AnyEndpoint, query: Record<string, unknown>, request: RequestInfo): AccessGrant | undefined
}

/** Per-call payment (x402): a grant for a valid payment, null when none was presented. */
export interface PaymentMethod {
  admit(endpoint: AnyEndpoint, price: string, request: RequestInfo, verifyLater?: boolean): Promise<AccessGrant | null>
  /** The 402 for a call that presented no payment. */
  required(endpoint: AnyEndpoint, price: string, request: RequestInfo): ApiError
}

const FREE_GRANT: AccessGrant = Object.freeze({ via: 'free', price: null })

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

/** The store key counting a free daily quota (per endpoint and IP, UTC day). */
const dailyQuotaKey = (endpoint: AnyEndpoint, ip: string, day: number) => `quota:${endpoint.method}:${endpoint.path}:${ip}:${day}`

/** Take one call of a free daily quota (per endpoint and IP, UTC day); false when used up. */
async function takeDailyQuota(store: Store, endpoint: AnyEndpoint, ip: string, perDay: number): Promise<boolean> {
  const day = Math.floor(Date.now() / 86_400_000)
  const msLeft = (day + 1) * 86_400_000 - Date.now()
  const used = await store.incr(dailyQuotaKey(endpoint, ip, day), 1, msLeft)
  return used <= perDay
}

/** Features whose data a connection token never reaches, even if a tool for them is added. */
const NOT_FOR_CONNECTIONS = new Set(['webhook', 'watchlist'])

/**
 * Where a connection token (svc_conn_) is accepted: /mcp itself and the tools called through it,
 * nothing else. So a phished connection cannot mint further codes or tokens (POST /mcp/account),
 * nor read or change the key's webhook or watchlist.
 */
function connectionMayCall(endpoint: AnyEndpoint, request: RequestInfo): boolean {
  if (request.channel !== 'mcp') return false
  if (endpoint.access.kind === 'key' && endpoint.access.feature && NOT_FOR_CONNECTIONS.has(endpoint.access.feature)) return false
  return endpoint.path === '/mcp' || endpoint.tool !== undefined
}

const connectionRefused = (endpoint: AnyEndpoint) =>
  new ApiError(
    'forbidden',
    `A connection token (${CONNECTION_PREFIX}...) is accepted at /mcp only; ${endpoint.method} ${endpoint.path} needs the subscription key itself.`,
    { credential: 'connection_token', accepted_at: '/mcp' },
  )

/** Whether a free daily quota has a call left, without taking it (the check made before a large body is read). */
export async function dailyQuotaLeft(store: Store, endpoint: AnyEndpoint, ip: string, perDay: number): Promise<boolean> {
  const used = Number((await store.get(dailyQuotaKey(endpoint, ip, Math.floor(Date.now() / 86_400_000)))) ?? 0)
  return used < perDay
}

export interface GateDeps {
  adminToken: string | undefined
  store: Store
  keys: KeyRegistry
  /** The MCP connector, whose connection tokens stand for their keys at /mcp (and its tools) only. */
  connector?: McpConnector
  /** Failed credential lookups allowed per client address and minute (default FAILED_LOOKUPS_PER_MINUTE). */
  failedLookupsPerMinute?: number
  /** x402; without it paid calls fail closed with 402. */
  payments?: PaymentMethod
}

/**
 * The gate: free endpoints (with their rate caps); the operator's admin token; subscription keys
 * (x-svc-key or Authorization: Bearer; paid endpoints run without payment, key endpoints check
 * the plan's features); free daily quotas of mixed endpoints; then per-call payment. Paid data
 * is never served without one of these: every other call answers 401 or 402.
 */
export function createAccessGate(deps: GateDeps): AccessGate {
  const { store, keys } = deps
  const failures = createFailedLookups(store, deps.failedLookupsPerMinute)
  /** A connection token of the MCP connector stands for the key it was issued for, while that key lives. */
  const byConnection = async (token: string) => {
    const keyHash = await deps.connector?.keyHashOf(token)
    return keyHash ? keys.byHash(keyHash) : null
  }
  // A free endpoint keeps answering when the shared store is down: its rate cap is then counted
  // here, per process, until the store is back.
  const local = createMemoryStore()
  const perMinute = async (endpoint: AnyEndpoint, ip: string, cap: number) => {
    try {
      await enforcePerMinute(store, endpoint, ip, cap)
    } catch (err) {
      if (!isDependencyUnavailable(err)) throw err
      await enforcePerMinute(local, endpoint, ip, cap)
    }
  }

  /**
   * A credential's record, looked up: the failed-lookup cap is read before a lookup only (a
   * malformed credential is never looked up, so it is refused without one).
   */
  async function lookUp(presented: string, connection: boolean, ip: string) {
    if (!connection) return keys.verify(presented, () => failures.refuseIfExhausted(ip))
    if (!looksLikeConnectionToken(presented)) return null
    await failures.refuseIfExhausted(ip)
    return byConnection(presented)
  }

  /** One grant per key record: held keys admit call after call without a new object each. */
  const keyGrants = new WeakMap<KeyRecord, AccessGrant>()
  function keyGrant(record: KeyRecord): AccessGrant {
    let grant = keyGrants.get(record)
    if (!grant) keyGrants.set(record, (grant = Object.freeze({ via: 'key', price: null, keyHash: record.keyHash, plan: record.plan } as const)))
    return grant
  }

  function admitNow(endpoint: AnyEndpoint, query: Record<string, unknown>, request: RequestInfo): AccessGrant | undefined {
    const access = endpoint.access
    if (access.kind === 'free') return access.perMinute ? undefined : FREE_GRANT
    if (access.kind === 'admin') return undefined
    if (access.kind === 'paid' && priceOf(access, query) === null) return FREE_GRANT
    const token = bearer(request)
    // The operator's token admits as the operator: `admit` says so.
    if (token !== undefined && deps.adminToken && sameSecret(token, deps.adminToken)) return undefined
    const presented = header(request, 'x-svc-key') ?? token
    const record = presented === undefined || presented.startsWith(CONNECTION_PREFIX) ? undefined : keys.held(presented)
    if (!record || (access.kind === 'key' && access.feature && !planHas(record.plan, access.feature))) return undefined
    return keyGrant(record)
  }

  async function admit(endpoint: AnyEndpoint, query: Record<string, unknown>, request: RequestInfo, verifyLater = false): Promise<AccessGrant> {
    const now = admitNow(endpoint, query, request)
    if (now) return now
    const access = endpoint.access
    const price = priceOf(access, query)
    if (access.kind === 'free') {
      if (access.perMinute) await perMinute(endpoint, request.ip, access.perMinute)
      return FREE_GRANT
    }

    const token = bearer(request)
    if (deps.adminToken && token && sameSecret(token, deps.adminToken)) return { via: 'admin', price: null }
    if (access.kind === 'admin') {
      if (token) {
        await failures.refuseIfExhausted(request.ip)
        await failures.failed(request.ip)
      }
      throw new ApiError(token ? 'forbidden' : 'missing_key', 'This endpoint needs the operator token (Authorization: Bearer).')
    }

    const presented = header(request, 'x-svc-key') ?? token
    if (presented !== undefined) {
      const connection = presented.startsWith(CONNECTION_PREFIX)
      // Refused before any lookup: a connection token never stands for its key outside /mcp.
      if (connection && !connectionMayCall(endpoint, request)) throw connectionRefused(endpoint)
      // A key verified moments ago is answered from memory (keys.held): the busy path, with no
      // store read, hash or closure per call.
      const record = (!connection && keys.held(presented)) || (await lookUp(presented, connection, request.ip))
      if (!record) {
        // Only a well-formed credential is looked up, so only its failure counts (a malformed one
        // costs nothing and can never succeed: it is refused at once).
        if (connection ? looksLikeConnectionToken(presented) : looksLikeKey(presented)) await failures.failed(request.ip)
        throw new ApiError('invalid_key', connection ? 'The connection token is not valid (unknown, expired, or its key was revoked).' : undefined)
      }
      if (access.kind === 'key' && access.feature && !planHas(record.plan, access.feature)) {
        throw new ApiError('forbidden', `The ${record.plan} plan does not include ${access.feature}.`, { plan: record.plan, feature: access.feature })
      }
      return keyGrant(record)
    }
    if (access.kind === 'key') throw new ApiError('missing_key')

    // ?tier=free on a mixed endpoint asks for the free quota only: a payment header is not used.
    const freeTierOnly = access.kind === 'mixed' && query.tier === 'free'
    if (deps.payments && !freeTierOnly) {
      const paid = await deps.payments.admit(endpoint, price!, request, verifyLater)
      if (paid) return paid
    }
    if (access.kind === 'mixed' && (await takeDailyQuota(store, endpoint, request.ip, access.freePerDay))) return { via: 'free_quota', price: null }
    if (deps.payments) throw deps.payments.required(endpoint, price!, request)
    const message = access.kind === 'mixed' ? `The free quota of ${access.freePerDay} per day is used up; pay per call or retry tomorrow.` : undefined
    throw new ApiError('payment_required', message, { price_usd: price, network: PAYMENT_NETWORK, asset: PAYMENT_ASSET })
  }

  return {
    admitNow,
    // Keys, payments' replay guard and free quotas are not checked without the store (or
    // ClickHouse): such a call fails closed with 503, never admitted unverified.
    async admit(endpoint, query, request, opts) {
      try {
        return await admit(endpoint, query, request, opts?.verifyLater)
      } catch (err) {
        throw unavailableAsApiError(err) ?? err
      }
    },
  }
}
