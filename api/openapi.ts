import { z } from 'zod'
import { DEFINITIONS_MARKDOWN } from './definitions.ts'
import { ERROR_CODES, type ErrorCode } from '../core/endpoint/errors.ts'
import { PAYMENT_NETWORK } from '../core/payment-terms.ts'
import { usdToAtomic } from './catalog/pricing.ts'
import type { AnyEndpoint } from '../core/endpoint/types.ts'
import { TAGS, type Tag } from '../core/endpoint/tags.ts'

type Json = Record<string, unknown>

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const s = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json
  delete s.$schema
  return s
}

function parameters(schema: z.ZodObject | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return []
  const js = jsonSchema(schema, 'input') as { properties?: Record<string, Json>; required?: string[] }
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (js.required ?? []).includes(name),
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    schema: s,
  }))
}

function errorResponse(codes: string[]): Json {
  return {
    description: codes.join(', '),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  }
}

/** Whether a schema (a part of the request) has an EVM-address field (refused with invalid_address). */
function hasAddress(schema: z.ZodObject | undefined): boolean {
  if (!schema) return false
  const props = (jsonSchema(schema, 'input').properties ?? {}) as Record<string, Json>
  return Object.values(props).some((p) => typeof p.pattern === 'string' && p.pattern.startsWith('^0x'))
}

/**
 * Every error status an endpoint can answer, by its declaration: the route layer (a credential
 * in the URL, a body on POST/DELETE: 400/413/415), its parameters, its access kind, the rate
 * caps and dependencies every call has, and the codes its handler declares (`errors`).
 */
export function errorCodesOf(e: AnyEndpoint): ErrorCode[] {
  const codes: ErrorCode[] = ['key_in_url']
  if (e.params || e.query || e.body || e.method !== 'GET') codes.push('invalid_parameter')
  if (hasAddress(e.params) || hasAddress(e.query) || (e.body instanceof z.ZodObject && hasAddress(e.body))) codes.push('invalid_address')
  // Fastify reads a body on every POST and DELETE, declared or not.
  if (e.method !== 'GET') codes.push('payload_too_large', 'unsupported_media_type')
  // forbidden: a connection token (svc_conn_) presented outside /mcp.
  if (e.access.kind === 'paid' || e.access.kind === 'mixed') codes.push('invalid_key', 'forbidden', 'payment_required')
  if (e.access.kind === 'key') codes.push('missing_key', 'invalid_key', 'forbidden')
  if (e.access.kind === 'admin') codes.push('missing_key', 'forbidden')
  codes.push(...(e.errors ?? []), 'rate_limited', 'internal_error', 'dependency_unavailable')
  if (!e.handler && !e.mountedBy) codes.push('not_implemented')
  return [...new Set(codes)]
}

function errorResponses(e: AnyEndpoint): Record<string, Json> {
  const byStatus = new Map<number, string[]>()
  for (const c of errorCodesOf(e)) byStatus.set(ERROR_CODES[c].status, [...(byStatus.get(ERROR_CODES[c].status) ?? []), c])
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => [String(status), errorResponse(codes)]))
}

/** The header a paid call carries its x402 payment in (the gate also reads the legacy X-Payment). */
const PAYMENT_HEADER = 'PAYMENT-SIGNATURE'

const SECURITY_SCHEMES = {
  svcKey: { type: 'apiKey', in: 'header', name: 'x-svc-key', description: 'A subscription key.' },
  bearerKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'Authorization: Bearer with a subscription key or an MCP connection token; on operator endpoints, the operator token (SVC_ADMIN_TOKEN).',
  },
  x402Payment: {
    type: 'apiKey',
    in: 'header',
    name: PAYMENT_HEADER,
    description: `An x402 (version 2) payment for this one call: base64 of the signed payment payload answering the PAYMENT-REQUIRED header of the 402 (the legacy X-Payment header is read too). See /.well-known/x402 for prices.`,
  },
} as const

type SecurityRequirement = Partial<Record<keyof typeof SECURITY_SCHEMES, []>>

/**
 * What a call must present, as the gate (api/access/gate.ts) admits it: requirements are
 * alternatives, and `{}` means a call may come with nothing (a free quota, a free tier).
 * A subscription key is read from x-svc-key or the bearer form alike.
 */
function securityOf(e: AnyEndpoint): SecurityRequirement[] {
  const key: SecurityRequirement[] = [{ svcKey: [] }, { bearerKey: [] }]
  switch (e.access.kind) {
    case 'free':
      return []
    case 'paid':
      // A query-dependent price can be free (/feed/new?tier=free): then nothing is needed.
      return [...(e.access.priceFor ? [{}] : []), ...key, { x402Payment: [] }]
    case 'mixed':
      return [{}, ...key, { x402Payment: [] }]
    case 'key':
      return key
    case 'admin':
      return [{ bearerKey: [] }]
  }
}

/** The root tag list: every tag the catalog uses, in TAGS' order, with its description. */
function tagsOf(catalog: AnyEndpoint[]): Json[] {
  const used = new Set<Tag>(catalog.flatMap((e) => e.tags))
  return (Object.keys(TAGS) as Tag[]).filter((t) => used.has(t)).map((name) => ({ name, description: TAGS[name] }))
}

function priceText(e: AnyEndpoint): string {
  const a = e.access
  switch (a.kind) {
    case 'free':
      return `Free.${a.note ? ` ${a.note}.` : ''}`
    case 'paid':
      return `Paid: ${a.price} USD per call over x402.${a.note ? ` ${a.note}.` : ''}`
    case 'mixed':
      return `Free ${a.freePerDay} per day per IP, then ${a.price} USD per call over x402.`
    case 'key':
      return `Needs a subscription key (x-svc-key or Authorization: Bearer)${a.feature ? ` whose plan includes ${a.feature}` : ''}.`
    case 'admin':
      return 'Operator only: Authorization: Bearer <SVC_ADMIN_TOKEN>.'
  }
}

/** The OpenAPI 3.1.0 document, generated from the one endpoint catalog. */
export function buildOpenApi(catalog: AnyEndpoint[]): Json {
  const paths: Record<string, Record<string, Json>> = {}
  for (const e of catalog) {
    const price = e.access.kind === 'paid' || e.access.kind === 'mixed' ? e.access.price : null
    const op: Json = {
      operationId: `${e.method.toLowerCase()}${e.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string) => (c ?? '').toUpperCase())}`,
      summary: e.summary,
      description: `${e.description}\n\n${priceText(e)}`,
      tags: e.tags,
      parameters: [...parameters(e.params, 'path'), ...parameters(e.query, 'query')],
      responses: {
        '200': {
          description: 'Success',
          content: { [e.produces ?? 'application/json']: { schema: jsonSchema(e.response, 'output') } },
        },
        ...Object.fromEntries(Object.entries(e.emptyResponses ?? {}).map(([status, description]) => [status, { description }])),
        ...errorResponses(e),
      },
      'x-access': e.access.kind,
      ...(price ? { 'x-price-usd': price, 'x-price-atomic': usdToAtomic(price), 'x-payment-network': PAYMENT_NETWORK } : {}),
      ...(e.access.kind === 'mixed' ? { 'x-free-per-day': e.access.freePerDay } : {}),
      ...(e.tool ? { 'x-mcp-tool': e.tool.name } : {}),
      ...(e.handler || e.mountedBy ? {} : { 'x-status': 'planned' }),
      security: securityOf(e),
    }
    if (e.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(e.body, 'input') } } }
    ;(paths[e.path] ??= {})[e.method.toLowerCase()] = op
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Chain Intelligence API',
      version: '0.3.0',
      description: DEFINITIONS_MARKDOWN,
      license: { name: 'Proprietary: served under the operator\'s terms', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'The operator of this service' },
    },
    // Relative: the API is served by the host that serves this document, wherever it runs.
    servers: [{ url: '/', description: 'The host that served this document' }],
    tags: tagsOf(catalog),
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: {
                  type: 'string',
                  enum: Object.keys(ERROR_CODES),
                  description: Object.entries(ERROR_CODES)
                    .map(([code, { status, message }]) => `- \`${code}\` (${status}): ${message}`)
                    .join('\n'),
                },
                message: { type: 'string' },
                details: { type: 'object' },
              },
            },
          },
        },
      },
    },
  }
}
