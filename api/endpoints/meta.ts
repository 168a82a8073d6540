import { LARGE_BODY_LIMIT_BYTES } from '../../core/endpoint/body-limits.ts'
import { z } from 'zod'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { buildOpenApi } from '../openapi.ts'
import { buildX402Catalog } from '../x402-catalog.ts'

const Document = z.record(z.string(), z.unknown())

export const openApiEndpoint = defineEndpoint<Uses<'cache' | 'catalog'>>()({
  method: 'GET',
  path: '/openapi.json',
  summary: 'OpenAPI description',
  description: 'This description (OpenAPI 3.1.0, version 0.3.0), generated from the endpoint catalog.',
  tags: ['service'],
  response: Document,
  access: { kind: 'free' },
  async handler({ deps }) {
    return deps.cache.get('openapi', 'static', async () => buildOpenApi(deps.catalog))
  },
})

export const x402CatalogEndpoint = defineEndpoint<Uses<'cache' | 'catalog' | 'config'>>()({
  method: 'GET',
  path: '/.well-known/x402',
  summary: 'x402 payment catalog',
  description: 'Machine-readable catalog (version 2) of every paid and mixed endpoint with its price.',
  tags: ['service'],
  response: Document,
  access: { kind: 'free' },
  async handler({ deps }) {
    return deps.cache.get('x402', 'static', async () => buildX402Catalog(deps.catalog, deps.config.X402_PAY_TO, deps.config.X402_ASSET))
  },
})

/** The kept views the scheduled audit last found drifted from their raw rows ('view' or 'view:chain'). */
export function driftedViews(deps: Uses<'audit'>): string[] {
  return deps.audit?.driftedViews() ?? []
}

const InfraFault = z.object({
  component: z.string().describe('the consumer or source retrying, e.g. chain-4663 or sim-4663'),
  at: z.string().describe('its step, sink, topic or checkpoint'),
  error_class: z.enum(['fd_exhausted', 'disk_full', 'memory', 'timeout', 'network', 'broker', 'store', 'engine', 'os']),
  error: z.string(),
  since: z.string(),
  retries: z.number().int(),
})

export const healthEndpoint = defineEndpoint<Uses<'readiness' | 'watermarks' | 'metrics' | 'stalledData' | 'audit'>>()({
  method: 'GET',
  path: '/health',
  summary: 'Readiness',
  description:
    'Readiness of ClickHouse, the bus and the store. Answers 503 dependency_unavailable when one is not ready. ' +
    'While a pipeline consumer or source of this process is retrying an infrastructure fault (file descriptors or disk exhausted, ' +
    'an engine timeout, the broker or store away) it answers 200 with status `degraded`, the component marked `degraded` and `faults` ' +
    'naming each with its error class; nothing is dead-lettered or skipped meanwhile, and it is back to `ok` once the fault clears. ' +
    'It also answers `degraded` (with the cause in `degraded.data`) when every component answers but the served data has not advanced while the bus has. ' +
    '`drifted_views` names the kept views whose last scheduled audit found keys drifted from their raw rows (`svc verify --repair` rebuilds them).',
  tags: ['operations'],
  response: z.object({
    status: z.enum(['ok', 'degraded']),
    components: z.record(z.string(), z.enum(['ok', 'degraded'])),
    faults: z.array(InfraFault).optional(),
    measured_through_block: z.record(z.string(), z.number().nullable()),
    degraded: z.record(z.string(), z.string()).optional(),
    drifted_views: z.array(z.string()),
  }),
  access: { kind: 'free' },
  async handler({ deps }) {
    const results = await Promise.all(
      Object.entries(deps.readiness).map(async ([name, check]) => {
        try {
          await Promise.race([check(), new Promise((_, rej) => setTimeout(() => rej(new Error('timed out after 2 s')), 2000).unref())])
          return [name, 'ok'] as const
        } catch (err) {
          return [name, err instanceof Error ? err.message : String(err)] as const
        }
      }),
    )
    const failed = results.filter(([, s]) => s !== 'ok')
    if (failed.length > 0) {
      throw new ApiError('dependency_unavailable', `Not ready: ${failed.map(([n]) => n).join(', ')}.`, Object.fromEntries(failed))
    }
    const faults = deps.metrics.infraFaults.active()
    const components: Record<string, 'ok' | 'degraded'> = Object.fromEntries(results.map(([n]) => [n, 'ok' as const]))
    for (const f of faults) components[f.component] = 'degraded'
    const stalled = await deps.stalledData?.cause()
    return {
      status: faults.length || stalled ? ('degraded' as const) : ('ok' as const),
      components,
      ...(faults.length ? { faults } : {}),
      measured_through_block: { '4663': deps.watermarks.get(4663) },
      ...(stalled ? { degraded: { data: stalled } } : {}),
      drifted_views: driftedViews(deps),
    }
  },
})

export const metricsEndpoint = defineEndpoint<Uses<'metrics'>>()({
  method: 'GET',
  path: '/metrics',
  summary: 'Prometheus metrics',
  description: 'Ingest rows/s, bus lag, batch latency and request latency by route, in the Prometheus text format.',
  tags: ['operations'],
  response: z.string(),
  produces: 'text/plain; version=0.0.4',
  access: { kind: 'free' },
  async handler({ deps }) {
    return { raw: await deps.metrics.render(), contentType: deps.metrics.contentType }
  },
})

export const mcpEndpoint = defineEndpoint()({
  method: 'POST',
  path: '/mcp',
  summary: 'MCP server',
  description: 'Model Context Protocol server (streamable HTTP, JSON-RPC 2.0, protocol 2025-06-18, server version 0.6.1). Tools are generated from this catalog (x-mcp-tool on each operation) and go through the same access rules as their endpoints.',
  tags: ['service'],
  // The transport's own message schema (strict JSON-RPC 2.0): what passes here it accepts.
  body: z.strictObject({
    jsonrpc: z.literal('2.0'),
    method: z.string(),
    id: z.union([z.string(), z.number().int()]).optional(),
    params: z
      .object({ _meta: z.object({ progressToken: z.union([z.string(), z.number()]).optional() }).catchall(z.unknown()).optional() })
      .catchall(z.unknown())
      .optional(),
  }),
  response: Document,
  access: { kind: 'key', note: 'a subscription key (x-svc-key or Bearer), or a connection token from the /mcp/account connector; 401 without, with WWW-Authenticate naming the OAuth metadata. Each tool call then runs like its endpoint: paid tools included in the plan run without payment' },
  errors: ['not_acceptable'],
  emptyResponses: { '202': 'A JSON-RPC notification or response was accepted (no body).' },
  // A tool call carries its endpoint's input: svc_identify's is a screenshot.
  bodyLimit: LARGE_BODY_LIMIT_BYTES,
  mountedBy: 'mcp',
})
