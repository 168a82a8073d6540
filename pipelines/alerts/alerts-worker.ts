import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import type { Store } from '../../core/store/types.ts'
import { createWebhookStore } from '../../products/alerts/webhook-store.ts'
import { loopbackAllowedByEnv } from '../../products/alerts/webhook-url.ts'
import type { SocialServing } from '../../products/social/social-serving.ts'
import type { TokenServing } from '../../products/token/token-serving.ts'
import type { Bus } from '../../core/bus/types.ts'
import type { Watermarks } from '../../core/serving/watermarks.ts'
import { createAlertDelivery, type AlertDelivery } from './delivery.ts'
import { createAlertProducers, type AlertProducers } from './producers.ts'
import { publishAlert } from './publish.ts'

/** Alert options; tests use them to reach a local HTTPS receiver quickly. */
export interface AlertOptions {
  /** Admit loopback webhook hosts (default: WEBHOOK_ALLOW_LOOPBACK=on). Tests only. */
  allowLoopback?: boolean
  /** Extra CA certificate (PEM) the delivery worker trusts. */
  ca?: string
  /** First retry wait in ms (default 1000, doubling). */
  backoffMs?: number
  /** The producers' safety-net pass interval in ms (default a minute; they are woken by what changed). */
  producerIntervalMs?: number
}

export interface AlertsWorker {
  producers: AlertProducers
  delivery: AlertDelivery
  stop(): Promise<void>
}

/**
 * The alerts role (`svc pipeline alerts`, and part of `svc start`): the producers, which
 * publish alerts for what is new in the serving state (tokens and callers, by key), and the delivery worker, which consumes
 * `alerts.events` and delivers each alert to the webhooks. The API only publishes (test alerts).
 */
export async function startAlertsWorker(
  deps: { ch: ClickHouseClient; bus: Bus; store: Store; logger: Logger; metrics: Metrics; namespace?: string; tokens: TokenServing; social: SocialServing; watermarks: Pick<Watermarks, 'onAdvance'> },
  opts: AlertOptions = {},
): Promise<AlertsWorker> {
  const webhooks = createWebhookStore(deps.ch)
  const policy = { allowLoopback: opts.allowLoopback ?? loopbackAllowedByEnv() }
  // One delivery consumer group across alert workers; producers may run in each (they dedupe).
  const delivery = createAlertDelivery({
    bus: deps.bus, webhooks, store: deps.store, logger: deps.logger, metrics: deps.metrics, namespace: deps.namespace, policy, ca: opts.ca, backoffMs: opts.backoffMs,
  })
  await delivery.start()
  const producers = createAlertProducers({
    ch: deps.ch, store: deps.store, tokens: deps.tokens, social: deps.social, watermarks: deps.watermarks, metrics: deps.metrics, logger: deps.logger, intervalMs: opts.producerIntervalMs,
    publish: (e) => publishAlert(deps.bus, e, deps.namespace),
  })
  producers.start()
  deps.logger.info({ allowLoopback: policy.allowLoopback }, 'alerts role started: producers and webhook delivery')
  return {
    producers,
    delivery,
    async stop() {
      await producers.stop()
      await delivery.stop()
    },
  }
}
