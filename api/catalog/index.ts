import { healthEndpoint, mcpEndpoint, metricsEndpoint, openApiEndpoint, x402CatalogEndpoint } from '../endpoints/meta.ts'
import { plannedEndpoints } from '../endpoints/planned.ts'
import { statsEndpoint } from '../endpoints/stats.ts'
import { tokenEndpoint } from '../endpoints/token.ts'
import type { AnyEndpoint } from './types.ts'

/**
 * The one endpoint catalog. Routes, /openapi.json, /.well-known/x402 and the MCP tools are all
 * generated from this list; an endpoint is declared in exactly one place.
 */
export const catalog: AnyEndpoint[] = [
  statsEndpoint,
  tokenEndpoint,
  ...plannedEndpoints,
  openApiEndpoint,
  x402CatalogEndpoint,
  healthEndpoint,
  metricsEndpoint,
  mcpEndpoint,
] as AnyEndpoint[]
