import type { FastifyInstance } from 'fastify'
import { createAccessGate } from '../api/access/gate.ts'
import { createKeyRegistry } from '../api/access/keys.ts'
import { createMcpConnector } from '../api/access/mcp-connector.ts'
import { x402PaymentMethod } from '../api/access/x402/method.ts'
import { createX402Payments } from '../api/access/x402/payments.ts'
import { createAlertDelivery, publishAlert } from '../api/alerts/delivery.ts'
import { createAlertProducers, type AlertProducers } from '../api/alerts/producers.ts'
import { createWebhookStore } from '../api/alerts/webhook-store.ts'
import { loopbackAllowedByEnv } from '../api/alerts/webhook-url.ts'
import { buildApp } from '../api/app.ts'
import { createTextReader } from '../api/identify/text-reader.ts'
import { catalog } from '../api/catalog/index.ts'
import type { ApiDeps } from '../api/deps.ts'
import { createServingCache } from '../api/serving/serving-cache.ts'
import { createSocialBookSource } from '../api/serving/social-book.ts'
import { createTokenBookSource } from '../api/serving/token-book.ts'
import { createWatermarks, type Watermarks } from '../api/serving/watermarks.ts'
import { mcpPlugin } from '../mcp/http.ts'
import { isDependencyUnavailable } from '../core/dependency.ts'
import type { Runtime } from './runtime.ts'

export interface ApiServer {
  app: FastifyInstance
  watermarks: Watermarks
  deps: ApiDeps
  /** The alert producers (a test may run a pass with `tick()`). */
  alertProducers: AlertProducers
  close(): Promise<void>
}

/** Alert options; tests use them to reach a local HTTPS receiver quickly. */
export interface AlertOptions {
  /** Admit loopback webhook hosts (default: WEBHOOK_ALLOW_LOOPBACK=on). Tests only. */
  allowLoopback?: boolean
  /** Extra CA certificate (PEM) the delivery worker trusts. */
  ca?: string
  /** First retry wait in ms (default 1000, doubling). */
  backoffMs?: number
  /** Producer pass interval in ms (default 2000). */
  producerIntervalMs?: number
}

/** Build the API (catalog routes + MCP) over a runtime. `pollMs` 0: watermarks are pushed in-process. */
export async function createApiServer(
  rt: Runtime,
  /** freshWaitMs: how long a request waits for the books of new data before stale ones are served (tests wait long: they assert on fresh data). */
  opts: { pollMs?: number; alerts?: AlertOptions; freshWaitMs?: number; faucet?: ApiDeps['faucet'] } = {},
): Promise<ApiServer> {
  const watermarks = createWatermarks(rt.ch, [4663], opts.pollMs ?? 500)
  // A ClickHouse server down at start: the poller fills the watermarks once it answers.
  await watermarks.refresh().catch((err: unknown) => {
    if (!isDependencyUnavailable(err)) throw err
  })
  const namespace = rt.config.BUS_NAMESPACE
  const webhooks = createWebhookStore(rt.ch)
  const policy = { allowLoopback: opts.alerts?.allowLoopback ?? loopbackAllowedByEnv() }
  const publish = (e: Parameters<typeof publishAlert>[1]) => publishAlert(rt.bus, e, namespace)
  const deps: ApiDeps = {
    config: rt.config,
    ch: rt.ch,
    store: rt.store,
    cache: createServingCache({ store: rt.config.REDIS_URL ? rt.store : undefined }),
    watermarks,
    keys: createKeyRegistry(rt.ch, rt.store),
    books: createTokenBookSource({ ch: rt.ch, watermarks, logger: rt.logger }, { freshWaitMs: opts.freshWaitMs }),
    socialBooks: createSocialBookSource({ ch: rt.ch, watermarks, logger: rt.logger }, { freshWaitMs: opts.freshWaitMs }),
    logger: rt.logger,
    metrics: rt.metrics,
    catalog,
    alerts: { webhooks, policy, publish },
    faucet: opts.faucet,
    textReader: createTextReader(rt.logger),
    connector: createMcpConnector(rt.ch, rt.store),
    readiness: {
      clickhouse: async () => void (await rt.ch.query({ query: 'SELECT 1', format: 'JSONEachRow' })).json(),
      bus: () => rt.bus.ping(),
      store: () => rt.store.ping(),
    },
  }
  // x402 when a pay-to address and a facilitator (URL or payments-chain RPC) are configured;
  // otherwise paid calls without a key fail closed with a plain 402.
  const payments = createX402Payments({ config: rt.config, store: rt.store, logger: rt.logger })
  const gate = createAccessGate({
    adminToken: rt.config.SVC_ADMIN_TOKEN,
    store: rt.store,
    keys: deps.keys,
    connector: deps.connector,
    payments: payments.enabled ? x402PaymentMethod(payments) : undefined,
  })
  const app = await buildApp({ deps, gate, catalog, plugins: [mcpPlugin(catalog, deps, gate)] })
  // One delivery consumer group across API processes; producers may run in each (they dedupe).
  const delivery = createAlertDelivery({ bus: rt.bus, webhooks, store: rt.store, logger: rt.logger, namespace, policy, ca: opts.alerts?.ca, backoffMs: opts.alerts?.backoffMs })
  await delivery.start()
  const alertProducers = createAlertProducers({
    ch: rt.ch, store: rt.store, books: deps.books, socialBooks: deps.socialBooks, publish, logger: rt.logger, intervalMs: opts.alerts?.producerIntervalMs,
  })
  alertProducers.start()
  return {
    app,
    watermarks,
    deps,
    alertProducers,
    async close() {
      await alertProducers.stop()
      await delivery.stop()
      watermarks.stop()
      await app.close()
      await deps.textReader?.close()
    },
  }
}
