import type { FastifyInstance } from 'fastify'
import { createAccessGate } from '../api/access/gate.ts'
import { createKeyRegistry } from '../api/access/keys.ts'
import { buildApp } from '../api/app.ts'
import { catalog } from '../api/catalog/index.ts'
import type { ApiDeps } from '../api/deps.ts'
import { createServingCache } from '../api/serving/serving-cache.ts'
import { createSocialBookSource } from '../api/serving/social-book.ts'
import { createTokenBookSource } from '../api/serving/token-book.ts'
import { createWatermarks, type Watermarks } from '../api/serving/watermarks.ts'
import { mcpPlugin } from '../mcp/http.ts'
import type { Runtime } from './runtime.ts'

export interface ApiServer {
  app: FastifyInstance
  watermarks: Watermarks
  deps: ApiDeps
  close(): Promise<void>
}

/** Build the API (catalog routes + MCP) over a runtime. `pollMs` 0: watermarks are pushed in-process. */
export async function createApiServer(rt: Runtime, opts: { pollMs?: number } = {}): Promise<ApiServer> {
  const watermarks = createWatermarks(rt.ch, [4663], opts.pollMs ?? 500)
  await watermarks.refresh()
  const deps: ApiDeps = {
    config: rt.config,
    ch: rt.ch,
    store: rt.store,
    cache: createServingCache({ store: rt.config.REDIS_URL ? rt.store : undefined }),
    watermarks,
    keys: createKeyRegistry(rt.ch),
    books: createTokenBookSource({ ch: rt.ch, watermarks, logger: rt.logger }),
    socialBooks: createSocialBookSource({ ch: rt.ch, watermarks, logger: rt.logger }),
    logger: rt.logger,
    metrics: rt.metrics,
    catalog,
    readiness: {
      clickhouse: async () => void (await rt.ch.query({ query: 'SELECT 1', format: 'JSONEachRow' })).json(),
      bus: () => rt.bus.ping(),
      store: () => rt.store.ping(),
    },
  }
  const gate = createAccessGate({ adminToken: rt.config.SVC_ADMIN_TOKEN, store: rt.store, keys: deps.keys })
  const app = await buildApp({ deps, gate, catalog, plugins: [mcpPlugin(catalog, deps, gate)] })
  return {
    app,
    watermarks,
    deps,
    async close() {
      watermarks.stop()
      await app.close()
    },
  }
}
