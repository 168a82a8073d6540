import { createHash } from 'node:crypto'
import { request } from 'node:https'
import type { LookupFunction } from 'node:net'
import type { Logger } from '../../core/logger.ts'
import type { Bus, Subscription } from '../../pipelines/bus/types.ts'
import { AlertEvent, alertBody } from '../../pipelines/records/alert.ts'
import { deadLetterTopic, namespaced, TOPICS } from '../../pipelines/topics.ts'
import { signatureHeader } from './sign.ts'
import { checkWebhookUrl, WebhookUrlError, type ResolvedAddress, type UrlPolicy } from './webhook-url.ts'
import type { Delivery, Webhook, WebhookStore } from './webhook-store.ts'

/** Attempts per delivery before it is marked failed (documented retry policy). */
export const MAX_ATTEMPTS = 6
/** Wait before the second attempt; it doubles after each failure (1, 2, 4, 8, 16 s). */
export const BACKOFF_MS = 1_000
const TIMEOUT_MS = 10_000

export interface AlertDeliveryDeps {
  bus: Bus
  webhooks: WebhookStore
  logger: Logger
  namespace?: string
  policy: UrlPolicy
  /** Extra trusted CA certificates (PEM): tests trust their self-signed receiver this way. */
  ca?: string
  maxAttempts?: number
  backoffMs?: number
  timeoutMs?: number
}

export interface AlertDelivery {
  start(): Promise<void>
  /** Stop consuming; deliveries still waiting for a retry are abandoned in their current status. */
  stop(): Promise<void>
}

/** The outcome of one HTTP attempt. */
interface Attempt {
  ok: boolean
  code: number | null
  error: string
}

function post(url: URL, addresses: ResolvedAddress[], body: string, headers: Record<string, string>, ca: string | undefined, timeoutMs: number): Promise<Attempt> {
  // Connect only to the addresses that were checked, so a second DNS answer cannot rebind.
  const lookup: LookupFunction = (_host, opts, cb) => {
    if (opts.all) (cb as unknown as (e: null, a: ResolvedAddress[]) => void)(null, addresses)
    else cb(null, addresses[0]!.address, addresses[0]!.family)
  }
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup, ca, timeout: timeoutMs }, (res) => {
      res.resume()
      res.on('end', () => {
        const code = res.statusCode ?? 0
        resolve({ ok: code >= 200 && code < 300, code, error: code >= 200 && code < 300 ? '' : `HTTP ${code}` })
      })
      res.on('error', (err) => resolve({ ok: false, code: res.statusCode ?? null, error: err.message }))
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    req.on('error', (err) => resolve({ ok: false, code: null, error: err.message }))
    req.end(body)
  })
}

/**
 * The one consumer of `alerts.events`: fans each alert out to every webhook (or to its target
 * key only) and delivers it signed, retrying with exponential backoff up to `maxAttempts`.
 * Each delivery's status is recorded for GET /alerts/webhook. The bus offset advances once the
 * deliveries are recorded and started; retries then run in this process.
 */
export function createAlertDelivery(deps: AlertDeliveryDeps): AlertDelivery {
  const maxAttempts = deps.maxAttempts ?? MAX_ATTEMPTS
  const backoffMs = deps.backoffMs ?? BACKOFF_MS
  const timeoutMs = deps.timeoutMs ?? TIMEOUT_MS
  const topic = namespaced(deps.namespace ?? '', TOPICS.alerts)
  const timers = new Set<NodeJS.Timeout>()
  const running = new Set<Promise<void>>()
  let sub: Subscription | undefined
  let stopped = false

  const record = (d: Delivery) => deps.webhooks.recordDelivery(d).catch((err) => deps.logger.error({ err, delivery: d.deliveryId }, 'recording a delivery failed'))

  async function attempt(event: AlertEvent, d: Delivery): Promise<void> {
    if (stopped) return
    const hook: Webhook | null = await deps.webhooks.get(d.keyHash)
    let result: Attempt
    let final = false
    if (!hook || hook.url !== d.url) {
      result = { ok: false, code: null, error: 'the webhook was removed or replaced' }
      final = true
    } else {
      try {
        const { url, addresses } = await checkWebhookUrl(hook.url, deps.policy)
        const body = alertBody(event)
        const t = Math.floor(Date.now() / 1000)
        result = await post(url, addresses, body, {
          'content-type': 'application/json',
          'user-agent': 'svc-alerts/1',
          'x-svc-event-id': event.id,
          'x-svc-signature': signatureHeader(hook.secret, body, t),
        }, deps.ca, timeoutMs)
      } catch (err) {
        // A URL that now resolves to a refused address is not retried.
        result = { ok: false, code: null, error: err instanceof Error ? err.message : String(err) }
        if (err instanceof WebhookUrlError) final = true
      }
    }
    const attempts = d.attempts + 1
    const status = result.ok ? 'delivered' : final || attempts >= maxAttempts ? 'failed' : 'retrying'
    const next: Delivery = { ...d, attempts, status, lastCode: result.code, lastError: result.error, updatedAt: new Date().toISOString() }
    await record(next)
    if (status !== 'retrying' || stopped) return
    const wait = backoffMs * 2 ** (attempts - 1)
    const timer = setTimeout(() => {
      timers.delete(timer)
      track(attempt(event, next))
    }, wait)
    timers.add(timer)
  }

  function track(p: Promise<void>) {
    const q = p.catch((err) => deps.logger.error({ err }, 'alert delivery failed unexpectedly')).finally(() => running.delete(q))
    running.add(q)
  }

  async function fanOut(event: AlertEvent) {
    const hooks = event.target ? [await deps.webhooks.get(event.target)].filter((w): w is Webhook => w !== null) : await deps.webhooks.list()
    for (const hook of hooks) {
      const now = new Date().toISOString()
      const d: Delivery = {
        keyHash: hook.keyHash,
        deliveryId: createHash('sha256').update(`${event.id}|${hook.keyHash}`).digest('hex').slice(0, 24),
        eventId: event.id, kind: event.kind, url: hook.url, status: 'pending', attempts: 0, lastCode: null, lastError: '', createdAt: now, updatedAt: now,
      }
      await deps.webhooks.recordDelivery(d)
      track(attempt(event, d))
    }
  }

  return {
    async start() {
      await deps.bus.ensureTopics([topic, deadLetterTopic(topic)])
      sub = await deps.bus.subscribe({
        groupId: namespaced(deps.namespace ?? '', 'alert-delivery'),
        topics: [topic],
        fromBeginning: false,
        maxBatchSize: 200,
        async onBatch(batch) {
          for (const m of batch.messages) {
            let parsed: ReturnType<typeof AlertEvent.safeParse>
            try {
              parsed = AlertEvent.safeParse(JSON.parse(m.value))
            } catch (err) {
              parsed = { success: false, error: err } as never
            }
            if (!parsed.success) {
              await deps.bus.publish(deadLetterTopic(topic), [{ key: m.key, value: m.value, headers: { ...m.headers, reason: String(parsed.error).slice(0, 500), step: 'alert-delivery', at: new Date().toISOString() } }])
              continue
            }
            await fanOut(parsed.data)
          }
        },
        onError: (err) => deps.logger.error({ err }, 'alert batch failed; it will be retried'),
      })
    },
    async stop() {
      stopped = true
      await sub?.stop()
      for (const t of timers) clearTimeout(t)
      timers.clear()
      await Promise.allSettled([...running])
    },
  }
}

/** Publish one alert on the bus (any producer). */
export async function publishAlert(bus: Bus, event: AlertEvent, namespace = ''): Promise<void> {
  await bus.publish(namespaced(namespace, TOPICS.alerts), [{ key: event.target ?? event.kind, value: JSON.stringify(AlertEvent.parse(event)) }])
}
