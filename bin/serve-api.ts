import { API_CONSUMER, engineFor, engineStep } from '../core/engine-accounting.ts'
import type { FastifyInstance } from 'fastify'
import { createAccessGate } from '../api/access/gate.ts'
import { createKeyRegistry } from '../api/access/keys.ts'
import { createMcpConnector } from '../api/access/mcp-connector.ts'
import { x402PaymentMethod } from '../api/access/x402/method.ts'
import { createX402Payments } from '../api/access/x402/payments.ts'
import { createWebhookStore } from '../products/alerts/webhook-store.ts'
import { loopbackAllowedByEnv } from '../products/alerts/webhook-url.ts'
import { buildApp } from '../api/app.ts'
import { createTextReader } from '../products/identify/text-reader.ts'
import { catalog as defaultCatalog } from '../api/catalog/index.ts'
import type { ApiDeps, ServedEndpoint } from '../core/endpoint/deps.ts'
import { createServingCache } from '../core/serving/serving-cache.ts'
import { createSocialServing } from '../products/social/social-serving.ts'
import { createSolanaServing } from '../products/wallet/solana-serving.ts'
import { createTokenServing } from '../products/token/token-serving.ts'
import { createWatermarks, type Watermarks } from '../core/serving/watermarks.ts'
import { createStalledDataCheck } from '../api/health/stalled-data.ts'
import { chainTopic, namespaced } from '../core/bus/topics.ts'
import { createArcServing } from '../products/arc/arc-serving.ts'
import { followed4663, followed5042 } from './follow.ts'
import { mcpPlugin } from '../mcp/http.ts'
import { clickhouseDoor } from '../api/clickhouse-door.ts'
import { isDependencyUnavailable } from '../core/dependency.ts'
import { SQL_LIMITS } from '../core/plans.ts'
import { createClickHouse } from '../core/clickhouse.ts'
import { publishAlert } from '../pipelines/alerts/publish.ts'
import { createScanQueue } from '../products/structure/scan-queue.ts'
import { publishClaims } from '../pipelines/process/claims-processor.ts'
import { createReceiptServing } from '../products/wallet/receipt-serving.ts'
import type { Runtime } from './runtime.ts'
import { runVerify } from '../pipelines/verify/run-verify.ts'

export interface ApiServer {
  app: FastifyInstance
  watermarks: Watermarks
  deps: ApiDeps
  close(): Promise<void>
}

/** What the API needs of the alerts: it only checks webhook URLs and publishes (delivery is the alerts role). */
export interface ApiAlertOptions {
  /** Admit loopback webhook hosts (default: WEBHOOK_ALLOW_LOOPBACK=on). Tests only. */
  allowLoopback?: boolean
}

/** Build the API (catalog routes + MCP) over a runtime. `pollMs` 0: watermarks are pushed in-process. */
export async function createApiServer(
  rt: Runtime,
  opts: {
    pollMs?: number
    alerts?: ApiAlertOptions
    faucet?: ApiDeps['faucet']
    audit?: ApiDeps['audit']
    /** The endpoints served (the catalog unless given: a test adds one as docs/architecture.md's recipe does). */
    catalog?: ServedEndpoint[]
  } = {},
): Promise<ApiServer> {
  const catalog = opts.catalog ?? defaultCatalog
  const watermarks = createWatermarks(rt.ch, [4663, 5042], opts.pollMs ?? 500)
  // A ClickHouse server down at start: the poller fills the watermarks once it answers.
  await watermarks.refresh().catch((err: unknown) => {
    if (!isDependencyUnavailable(err)) throw err
  })
  const namespace = rt.config.BUS_NAMESPACE
  const policy = { allowLoopback: opts.alerts?.allowLoopback ?? loopbackAllowedByEnv() }
  const publish = (e: Parameters<typeof publishAlert>[1]) => publishAlert(rt.bus, e, namespace)
  const cache = createServingCache({ store: rt.config.REDIS_URL ? rt.store : undefined })
  const attribution = followed5042(rt.config).attribution!
  // What the API reads from the engine (its kept state's misses, keys, webhooks) counts as the
  // API's (svc_engine_*{consumer="api"}: API reads wait in their own class); a handler's own
  // statements count under its path (api/routes.ts).
  const ch = engineFor(rt.ch, API_CONSUMER, 'kept')
  // Each keeper's reads apart (kept/<keeper>): the load bench names which one fills the engine.
  const kept = (keeper: string) => engineStep(ch, keeper)
  const webhooks = createWebhookStore(ch)
  const deps: ApiDeps = {
    config: rt.config,
    ch,
    quoteTokens: followed4663(rt.config).weth,
    store: rt.store,
    cache,
    arc: createArcServing({ ch: kept('arc'), cache, watermarks, venues: { pads: [...attribution.pads].sort(), factories: [...attribution.factories].sort() } }),
    watermarks,
    keys: createKeyRegistry(kept('keys'), rt.store),
    tokens: createTokenServing({ ch: kept('tokens'), watermarks, logger: rt.logger, maxEntries: rt.config.SERVING_CACHE_ENTRIES, store: rt.config.REDIS_URL ? rt.store : undefined }),
    social: createSocialServing({ ch: kept('social'), watermarks, logger: rt.logger, maxEntries: rt.config.SERVING_CACHE_ENTRIES }),
    solana: createSolanaServing({ ch: kept('solana'), maxEntries: rt.config.SERVING_CACHE_ENTRIES }),
    receipts: createReceiptServing({ ch: kept('receipts'), watermarks, maxEntries: rt.config.SERVING_CACHE_ENTRIES }),
    roster: { publish: (claims) => publishClaims(rt.bus, namespace, claims) },
    logger: rt.logger,
    metrics: rt.metrics,
    catalog,
    alerts: { webhooks, policy, publish },
    scans: createScanQueue({ ch, bus: rt.bus, namespace, maxRequested: rt.config.SCAN_QUEUE_MAX }),
    faucet: opts.faucet,
    audit: opts.audit,
    verify: (o) => runVerify(ch, o),
    textReader: createTextReader(rt.logger),
    connector: createMcpConnector(ch, rt.store),
    readiness: {
      clickhouse: async () => void (await rt.ch.query({ query: 'SELECT 1', format: 'JSONEachRow' })).json(),
      bus: () => rt.bus.ping(),
      store: () => rt.store.ping(),
    },
    stalledData: createStalledDataCheck({ bus: rt.bus, topic: namespaced(namespace, chainTopic(4663)), chainId: 4663, servedThrough: () => watermarks.get(4663) }),
  }
  // x402 when a pay-to address and a facilitator (URL or payments-chain RPC) are configured;
  // otherwise paid calls without a key fail closed with a plain 402.
  const payments = createX402Payments({ config: rt.config, store: rt.store, logger: rt.logger, metrics: rt.metrics })
  const gate = createAccessGate({
    adminToken: rt.config.SVC_ADMIN_TOKEN,
    store: rt.store,
    keys: deps.keys,
    connector: deps.connector,
    payments: payments.enabled ? x402PaymentMethod(payments) : undefined,
  })
  // With an engine over HTTP (the engine process, a server), the door's checked queries run there
  // as the analyst user when there is one, answered by ClickHouse itself.
  const c = rt.config
  const engine = c.CLICKHOUSE_URL
    ? c.CLICKHOUSE_ANALYST_USER
      ? { url: c.CLICKHOUSE_URL, user: c.CLICKHOUSE_ANALYST_USER, password: c.CLICKHOUSE_ANALYST_PASSWORD ?? '', analyst: true }
      : { url: c.CLICKHOUSE_URL, user: c.CLICKHOUSE_USER, password: c.CLICKHOUSE_PASSWORD, analyst: false }
    : undefined
  const app = await buildApp({ deps, gate, catalog, plugins: [mcpPlugin(catalog, deps, gate), clickhouseDoor({ ...deps, engine }).plugin] })
  return {
    app,
    watermarks,
    deps,
    async close() {
      watermarks.stop()
      await app.close()
      await deps.textReader?.close()
    },
  }
}
