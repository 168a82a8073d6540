import { createHash, randomUUID } from 'node:crypto'
import { request } from 'node:https'
import type { LookupFunction } from 'node:net'
import type { Logger } from '../../core/logger.ts'
import type { Store } from '../../core/store/types.ts'
import type { Metrics } from '../../core/metrics.ts'
import { checkWebhookUrl, WebhookUrlError, type ResolvedAddress, type UrlPolicy } from '../../products/alerts/webhook-url.ts'
import type { Delivery, StoredDelivery, Webhook, WebhookStore } from '../../products/alerts/webhook-store.ts'
import type { Bus } from '../../core/bus/types.ts'
import { createConsumer, type Consumer } from '../consumer/create-consumer.ts'
import { AlertEvent, alertBody } from '../../products/alerts/alert.ts'
import { TOPICS } from '../../core/bus/topics.ts'
import { signatureHeader } from './sign.ts'
import { BACKOFF_MS, MAX_ATTEMPTS } from '../../products/alerts/alert-retry.ts'

const TIMEOUT_MS = 10_000
/** How often a worker looks for unfinished deliveries that no process is attempting (a peer crashed). */
const RESUME_EVERY_MS = 30_000
/** Unfinished deliveries read per look, least recently updated first. */
const RESUME_BATCH = 1_000

export interface AlertDeliveryDeps {
  bus: Bus
  webhooks: WebhookStore
  /** Claims on delivery attempts: shared by the alert workers (Redis) so that one of them makes each attempt. */
  store: Store
  logger: Logger
  metrics: Metrics
  namespace?: string
  policy: UrlPolicy
  /** Extra trusted CA certificates (PEM): tests trust their self-signed receiver this way. */
  ca?: string
  maxAttempts?: number
  backoffMs?: number
  timeoutMs?: number
  /** How often to resume unfinished deliveries nobody attempts (default 30 s; 0: only at start). */
  resumeEveryMs?: number
  /** How long a claim on one attempt holds (default 60 s, at least 3 timeouts); a crashed claimer's attempt is retried after it. */
  claimMs?: number
}

export interface AlertDelivery {
  /** Start consuming, and resume the deliveries a stopped or crashed worker left pending or retrying. */
  start(): Promise<void>
  /**
   * Stop consuming and let attempts in flight finish and be recorded. Deliveries waiting for a
   * retry stay pending or retrying in the store: the next worker to start resumes them.
   */
  stop(): Promise<void>
}

/** The store key one process takes to make attempt `attempts + 1` of a delivery. */
export const claimKey = (deliveryId: string, attempts: number) => `alert-delivery:${deliveryId}:${attempts}`

const unfinished = (d: Delivery) => d.status === 'pending' || d.status === 'retrying'

/** When a delivery's next attempt is due (ms): a new one at once, else its last attempt plus the backoff for its count. */
export function nextAttemptAt(d: Delivery, backoffMs = BACKOFF_MS): number {
  const last = Date.parse(d.updatedAt)
  return d.attempts === 0 ? last : last + backoffMs * 2 ** (d.attempts - 1)
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
 * Each delivery is recorded with its body and status before it is attempted, and again after
 * each attempt; the bus offset advances once the deliveries are recorded. Retries wait in this
 * process, and a worker that starts (or, every `resumeEveryMs`, finds deliveries nobody attempts)
 * resumes unfinished ones from the store at their due time, keeping their attempt count.
 *
 * Every attempt first claims (delivery, attempt number) in the shared store, then re-reads the
 * delivery: only the claimer whose stored attempt count still matches sends. So alert workers
 * that resume at once send each attempt once. Delivery is at least once all the same: a crash
 * between a receiver's answer and its record repeats that attempt after the claim expires
 * (receivers dedupe on X-Svc-Event-Id).
 */
export function createAlertDelivery(deps: AlertDeliveryDeps): AlertDelivery {
  const maxAttempts = deps.maxAttempts ?? MAX_ATTEMPTS
  const backoffMs = deps.backoffMs ?? BACKOFF_MS
  const timeoutMs = deps.timeoutMs ?? TIMEOUT_MS
  const resumeEveryMs = deps.resumeEveryMs ?? RESUME_EVERY_MS
  // The claim must outlast one attempt (lookup, connect, answer, record), and no more than that.
  const claimMs = deps.claimMs ?? Math.max(60_000, 3 * timeoutMs)
  const claimant = randomUUID()
  const timers = new Set<NodeJS.Timeout>()
  const running = new Set<Promise<void>>()
  /** Deliveries with a timer or an attempt in this process: a resume does not schedule them twice. */
  const active = new Set<string>()
  let consumer: Consumer | undefined
  let sweeper: NodeJS.Timeout | undefined
  let stopped = false

  const record = (d: StoredDelivery) => deps.webhooks.recordDelivery(d).catch((err) => deps.logger.error({ err, delivery: d.deliveryId }, 'recording a delivery failed'))

  /** Make the attempt `queued` stands for, if this process wins it; returns the delivery when a retry is due. */
  async function attempt(queued: StoredDelivery): Promise<StoredDelivery | undefined> {
    if (stopped) return
    if (!(await deps.store.setIfAbsent(claimKey(queued.deliveryId, queued.attempts), claimant, claimMs))) return
    // The store's state, not the queued copy: another process may have made this attempt already.
    const d = await deps.webhooks.delivery(queued.keyHash, queued.deliveryId)
    if (!d || d.attempts !== queued.attempts || !unfinished(d)) return
    if (d.attempts >= maxAttempts || !d.body) {
      const lastError = d.body ? d.lastError : 'recorded without its body (before migration 009): it cannot be resumed'
      await record({ ...d, status: 'failed', lastError, updatedAt: new Date().toISOString() })
      return
    }
    const hook: Webhook | null = await deps.webhooks.get(d.keyHash)
    let result: Attempt
    let final = false
    if (!hook || hook.url !== d.url) {
      result = { ok: false, code: null, error: 'the webhook was removed or replaced' }
      final = true
    } else {
      try {
        const { url, addresses } = await checkWebhookUrl(hook.url, deps.policy)
        const t = Math.floor(Date.now() / 1000)
        result = await post(url, addresses, d.body, {
          'content-type': 'application/json',
          'user-agent': 'svc-alerts/1',
          'x-svc-event-id': d.eventId,
          'x-svc-signature': signatureHeader(hook.secret, d.body, t),
        }, deps.ca, timeoutMs)
      } catch (err) {
        // A URL that now resolves to a refused address is not retried.
        result = { ok: false, code: null, error: err instanceof Error ? err.message : String(err) }
        if (err instanceof WebhookUrlError) final = true
      }
    }
    const attempts = d.attempts + 1
    const status = result.ok ? 'delivered' : final || attempts >= maxAttempts ? 'failed' : 'retrying'
    const next: StoredDelivery = { ...d, attempts, status, lastCode: result.code, lastError: result.error, updatedAt: new Date().toISOString() }
    await record(next)
    return status === 'retrying' ? next : undefined
  }

  /** Attempt `d` when it is due, then schedule its retry; once per delivery in this process. */
  function schedule(d: StoredDelivery) {
    if (stopped || active.has(d.deliveryId)) return
    active.add(d.deliveryId)
    const timer = setTimeout(() => {
      timers.delete(timer)
      track((async () => {
        let next: StoredDelivery | undefined
        try {
          next = await attempt(d)
        } finally {
          active.delete(d.deliveryId)
        }
        if (next) schedule(next)
      })())
    }, Math.max(0, nextAttemptAt(d, backoffMs) - Date.now()))
    timers.add(timer)
  }

  function track(p: Promise<void>) {
    const q = p.catch((err) => deps.logger.error({ err }, 'alert delivery failed unexpectedly')).finally(() => running.delete(q))
    running.add(q)
  }

  /** Schedule the unfinished deliveries in the store (left by a stopped or crashed worker); the claims pick who attempts each. */
  async function resume() {
    for (const d of await deps.webhooks.unfinishedDeliveries(RESUME_BATCH)) schedule(d)
  }

  /**
   * The webhooks of one batch of events, each read once for the batch: every webhook for an
   * untargeted event, a key's own for a targeted one. Per event, a backfill that produced hundreds
   * of alerts read the whole list hundreds of times (17 s of the engine's time at a start).
   */
  function webhooksOfBatch(): (event: AlertEvent) => Promise<Webhook[]> {
    let everyone: Promise<Webhook[]> | undefined
    const own = new Map<string, Promise<Webhook[]>>()
    return (event) => {
      const target = event.target
      if (!target) return (everyone ??= deps.webhooks.list())
      let hooks = own.get(target)
      if (!hooks) own.set(target, (hooks = deps.webhooks.get(target).then((w) => (w ? [w] : []))))
      return hooks
    }
  }

  async function fanOut(event: AlertEvent, webhooksOf: (event: AlertEvent) => Promise<Webhook[]>) {
    const hooks = await webhooksOf(event)
    const body = alertBody(event)
    for (const hook of hooks) {
      const deliveryId = createHash('sha256').update(`${event.id}|${hook.keyHash}`).digest('hex').slice(0, 24)
      // A batch the bus hands out again finds its deliveries recorded: they go on from there, not from the start.
      let d = await deps.webhooks.delivery(hook.keyHash, deliveryId)
      if (!d) {
        const now = new Date().toISOString()
        d = {
          keyHash: hook.keyHash, deliveryId, eventId: event.id, kind: event.kind, url: hook.url, status: 'pending', attempts: 0,
          lastCode: null, lastError: '', createdAt: now, updatedAt: now, body,
        }
        await deps.webhooks.recordDelivery(d)
      }
      if (unfinished(d)) schedule(d)
    }
  }

  return {
    async start() {
      consumer = createConsumer({
        name: 'alert-delivery',
        bus: deps.bus,
        logger: deps.logger,
        metrics: deps.metrics,
        namespace: deps.namespace,
        topic: TOPICS.alerts,
        schema: AlertEvent,
        fromBeginning: false,
        maxBatchSize: 200,
        // The events are acknowledged once their deliveries are recorded; attempts run on their own timers.
        sink: {
          name: 'fan-out',
          async write(items) {
            const webhooksOf = webhooksOfBatch()
            for (const { value } of items) await fanOut(value, webhooksOf)
          },
        },
      })
      await consumer.start()
      // A store that cannot be read now does not stop the worker: the next look retries.
      await resume().catch((err) => deps.logger.error({ err }, 'resuming unfinished deliveries failed'))
      if (resumeEveryMs > 0) {
        sweeper = setInterval(() => track(resume()), resumeEveryMs)
        sweeper.unref()
      }
    },
    async stop() {
      stopped = true
      clearInterval(sweeper)
      await consumer?.stop()
      for (const t of timers) clearTimeout(t)
      timers.clear()
      await Promise.allSettled([...running])
    },
  }
}
