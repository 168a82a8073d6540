import type { FastifyReply, FastifyRequest } from 'fastify'
import { planHas } from '../../core/plans.ts'
import type { Store } from '../../core/store/types.ts'
import type { AnyEndpoint, RequestInfo } from '../../core/endpoint/types.ts'
import { unavailableAsApiError } from '../../core/endpoint/errors.ts'
import { dailyQuotaLeft, type AccessGate } from './gate.ts'
import { bearer, header } from '../../core/endpoint/request-headers.ts'
import type { KeyRegistry } from './keys.ts'
import { DOOR_UNAUTHENTICATED, doorKey } from '../door-key.ts'

/**
 * The access checks a route with a large body makes before its body is read (Fastify's onRequest
 * hook), so a caller who may not call it never gets to make the process buffer megabytes. They
 * decide nothing the gate would not: key and operator endpoints are admitted by the gate itself
 * (which has no side effect on those kinds, and runs again with the body); a mixed endpoint
 * (free quota, then payment) is refused early only when no key and no payment is presented and
 * the free quota is used up, through the gate, so the 402 is the gate's own. The free quota is
 * only looked at here: it is taken once the body has passed its checks.
 */
export async function admitBeforeBody(gate: AccessGate, store: Store, endpoint: AnyEndpoint, query: Record<string, unknown>, info: RequestInfo): Promise<void> {
  const access = endpoint.access
  if (access.kind === 'key' || access.kind === 'admin') {
    await gate.admit(endpoint, query, info)
    return
  }
  if (access.kind !== 'mixed') return
  if (header(info, 'x-svc-key') !== undefined || bearer(info) !== undefined) {
    await gate.admit(endpoint, query, info)
    return
  }
  const paying = query.tier !== 'free' && (header(info, 'payment-signature') !== undefined || header(info, 'x-payment') !== undefined)
  if (paying) return
  let left: boolean
  try {
    left = await dailyQuotaLeft(store, endpoint, info.ip, access.freePerDay)
  } catch (err) {
    throw unavailableAsApiError(err) ?? err
  }
  if (!left) await gate.admit(endpoint, query, info)
}


/**
 * The SQL door (/clickhouse) reads up to the large body limit: before it does, the key must be a
 * live analyst key. Refused here the way the door refuses (ClickHouse's text error, 516 or 497);
 * the door checks the key again, with its rate, once the body is read.
 */
export function doorKeyBeforeBody(keys: KeyRegistry) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method !== 'POST') return
    const key = doorKey(req)
    const record = key ? await keys.verify(key) : null
    const refusal = !record
      ? { status: 401, code: 516, name: 'AUTHENTICATION_FAILED', message: DOOR_UNAUTHENTICATED }
      : !planHas(record.plan, 'sql')
        ? { status: 403, code: 497, name: 'ACCESS_DENIED', message: `Not enough privileges: the ${record.plan} plan does not include SQL; an analyst key does.` }
        : null
    if (!refusal) return
    return reply
      .status(refusal.status)
      .header('x-clickhouse-exception-code', String(refusal.code))
      .header('connection', 'close')
      .type('text/plain; charset=UTF-8')
      .send(`Code: ${refusal.code}. DB::Exception: ${refusal.message} (${refusal.name})\n`)
  }
}
