import { randomBytes, randomUUID } from 'node:crypto'
import { z } from 'zod'
import { BACKOFF_MS, MAX_ATTEMPTS } from './alert-retry.ts'
import { checkWebhookUrl, WebhookUrlError, type UrlPolicy } from './webhook-url.ts'
import { defineEndpoint, type HandlerContext } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { HttpsUrl } from '../../core/endpoint/schemas.ts'
import type { AlertEvent } from './alert.ts'
import type { WebhookStore } from './webhook-store.ts'

/** How many recent deliveries GET /alerts/webhook lists. */
const RECENT_DELIVERIES = 20

const Delivery = z.object({
  id: z.string(),
  event_id: z.string(),
  kind: z.string(),
  url: z.string(),
  status: z.enum(['pending', 'retrying', 'delivered', 'failed']),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
})
const Retry = z.object({ max_attempts: z.number().int(), first_backoff_ms: z.number().int(), factor: z.number() })
const retry = { max_attempts: MAX_ATTEMPTS, first_backoff_ms: BACKOFF_MS, factor: 2 }

function scope(ctx: HandlerContext<unknown, unknown, unknown, Uses<'alerts'>>) {
  if (!ctx.grant.keyHash) throw new ApiError('missing_key', 'The webhook belongs to a subscription key: send x-svc-key.')
  if (!ctx.deps.alerts) throw new ApiError('dependency_unavailable', 'Alerts are not running in this process.')
  return { keyHash: ctx.grant.keyHash, alerts: ctx.deps.alerts }
}

export const setWebhookEndpoint = defineEndpoint<Uses<'alerts'>>()({
  method: 'POST',
  path: '/alerts/webhook',
  summary: 'Set the alert webhook',
  description:
    'Sets the key\'s https webhook URL (replacing any previous one) and returns its signing secret, once. The host must resolve only to public addresses (no private, loopback, link-local, CGNAT, multicast or unspecified ones). Deliveries are POSTs of {id, kind, created_at, data} signed with X-Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>.',
  tags: ['account'],
  body: z.object({ url: HttpsUrl(2048) }),
  response: z.object({ data: z.object({ url: z.string(), secret: z.string(), created_at: z.string(), signature_header: z.string(), retry: Retry }) }),
  access: { kind: 'key', feature: 'webhook' },
  async handler(ctx) {
    const { keyHash, alerts } = scope(ctx)
    try {
      await checkWebhookUrl(ctx.body.url, alerts.policy)
    } catch (err) {
      if (!(err instanceof WebhookUrlError)) throw err
      throw new ApiError('invalid_parameter', err.message, { parameter: 'url', expected: 'an https URL whose host resolves only to public addresses', reason: err.reason, ...(err.address ? { address: err.address } : {}) })
    }
    const secret = `whsec_${randomBytes(32).toString('hex')}`
    const createdAt = new Date().toISOString()
    await alerts.webhooks.set({ keyHash, url: ctx.body.url, secret, createdAt })
    return { data: { url: ctx.body.url, secret, created_at: createdAt, signature_header: 'X-Svc-Signature', retry } }
  },
})

export const getWebhookEndpoint = defineEndpoint<Uses<'alerts'>>()({
  method: 'GET',
  path: '/alerts/webhook',
  summary: 'Webhook configuration',
  description: `The key's webhook (never its secret) and its latest ${RECENT_DELIVERIES} deliveries with status: pending, retrying, delivered, or failed after ${MAX_ATTEMPTS} attempts (backoff ${BACKOFF_MS / 1000} s, doubling).`,
  tags: ['account'],
  response: z.object({ data: z.object({ configured: z.boolean(), url: z.string().nullable(), created_at: z.string().nullable(), retry: Retry, deliveries: z.array(Delivery) }) }),
  access: { kind: 'key', feature: 'webhook' },
  async handler(ctx) {
    const { keyHash, alerts } = scope(ctx)
    const [hook, deliveries] = await Promise.all([alerts.webhooks.get(keyHash), alerts.webhooks.recentDeliveries(keyHash, RECENT_DELIVERIES)])
    return {
      data: {
        configured: hook !== null,
        url: hook?.url ?? null,
        created_at: hook?.createdAt ?? null,
        retry,
        deliveries: deliveries.map((d) => ({
          id: d.deliveryId, event_id: d.eventId, kind: d.kind, url: d.url, status: d.status, attempts: d.attempts,
          last_status_code: d.lastCode, last_error: d.lastError || null, created_at: d.createdAt, updated_at: d.updatedAt,
        })),
      },
    }
  },
})

export const deleteWebhookEndpoint = defineEndpoint<Uses<'alerts'>>()({
  method: 'DELETE',
  path: '/alerts/webhook',
  summary: 'Remove the webhook',
  description: 'Removes the key\'s webhook; alerts stop and retries still pending are dropped.',
  tags: ['account'],
  response: z.object({ data: z.object({ removed: z.boolean() }) }),
  access: { kind: 'key', feature: 'webhook' },
  async handler(ctx) {
    const { keyHash, alerts } = scope(ctx)
    return { data: { removed: await alerts.webhooks.remove(keyHash) } }
  },
})

export const testAlertEndpoint = defineEndpoint<Uses<'alerts'>>()({
  method: 'POST',
  path: '/alerts/test',
  summary: 'Fire a test alert',
  description: 'Publishes a `test` event to this key\'s webhook only; its delivery shows in GET /alerts/webhook. 409 when no webhook is set.',
  tags: ['account'],
  response: z.object({ data: z.object({ event_id: z.string(), kind: z.literal('test'), queued: z.boolean() }) }),
  access: { kind: 'key', feature: 'webhook' },
  errors: ['conflict'],
  async handler(ctx) {
    const { keyHash, alerts } = scope(ctx)
    if (!(await alerts.webhooks.get(keyHash))) throw new ApiError('conflict', 'No webhook is set for this key: POST /alerts/webhook first.')
    const id = `test:${randomUUID()}`
    await alerts.publish({ id, kind: 'test', created_at: new Date().toISOString(), data: { message: 'This is a test alert.' }, target: keyHash })
    return { data: { event_id: id, kind: 'test' as const, queued: true } }
  },
})

/** Alert webhooks as the /alerts/* endpoints see them. */
export interface AlertsDeps {
  webhooks: WebhookStore
  /** Where a webhook may point (loopback only when explicitly allowed). */
  policy: UrlPolicy
  /** Put an alert on the bus for the delivery worker. */
  publish(e: AlertEvent): Promise<void>
}

declare module '../../core/endpoint/deps.ts' {
  interface ApiDeps {
    /** Alert webhooks; absent in processes that do not serve /alerts/*. */
    alerts?: AlertsDeps
  }
}
