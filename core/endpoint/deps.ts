import type { ClickHouseClient } from '../clickhouse.ts'
import type { Config } from '../config.ts'
import type { Logger } from '../logger.ts'
import type { Metrics } from '../metrics.ts'
import type { ServingCache } from '../serving/serving-cache.ts'
import type { Watermarks } from '../serving/watermarks.ts'
import type { Store } from '../store/types.ts'
import type { AnyEndpoint } from './types.ts'

/**
 * What endpoint handlers may use. Here are the parts every process has; each product (and the
 * API's own services) adds the part it provides where it defines it, by declaration merging
 * (`declare module '.../core/endpoint/deps.ts' { interface ApiDeps { tokens: TokenServing } }`,
 * as fastify's decorators are declared), so an endpoint names what it uses without importing
 * who assembles it, and the arrows run one way (api -> products -> core).
 */
export interface ApiDeps {
  config: Config
  ch: ClickHouseClient
  store: Store
  cache: ServingCache
  watermarks: Watermarks
  logger: Logger
  metrics: Metrics
  /** The endpoint catalog (for the documents generated from it). */
  catalog: AnyEndpoint[]
}

/** The dependencies an endpoint uses, named by key: `defineEndpoint<Uses<'tokens'>>()`. */
export type Uses<K extends keyof ApiDeps> = Pick<ApiDeps, K>

/** A catalog endpoint as the routes and MCP tools call it, with this process's dependencies. */
export type ServedEndpoint = AnyEndpoint<ApiDeps>
