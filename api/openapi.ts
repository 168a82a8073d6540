import { z } from 'zod'
import { DEFINITIONS_MARKDOWN } from './definitions.ts'
import { ERROR_CODES } from './errors.ts'
import { PAYMENT_NETWORK } from './access/x402/constants.ts'
import { usdToAtomic } from './catalog/pricing.ts'
import type { AnyEndpoint } from './catalog/types.ts'

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

/** Which error statuses an endpoint can answer, by its declaration. */
function errorResponses(e: AnyEndpoint): Record<string, Json> {
  const out: Record<string, Json> = {}
  const byStatus = (codes: Array<keyof typeof ERROR_CODES>) => {
    for (const c of codes) {
      const s = String(ERROR_CODES[c].status)
      const list = ((out[s] as { description?: string })?.description ?? '').split(', ').filter(Boolean)
      out[s] = errorResponse([...list, c])
    }
  }
  if (e.params || e.query || e.body) byStatus(['invalid_parameter'])
  if (e.params && Object.keys(e.params.shape).some((k) => k === 'token' || k === 'address')) byStatus(['invalid_address'])
  if (e.body) byStatus(['payload_too_large', 'unsupported_media_type'])
  if (e.access.kind === 'paid' || e.access.kind === 'mixed') byStatus(['payment_required'])
  if (e.access.kind === 'key') byStatus(['missing_key', 'invalid_key', 'forbidden'])
  if (e.access.kind === 'admin') byStatus(['missing_key', 'forbidden'])
  byStatus(['rate_limited', 'internal_error', 'dependency_unavailable'])
  if (!e.handler) byStatus(['not_implemented'])
  return out
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
        ...errorResponses(e),
      },
      'x-access': e.access.kind,
      ...(price ? { 'x-price-usd': price, 'x-price-atomic': usdToAtomic(price), 'x-payment-network': PAYMENT_NETWORK } : {}),
      ...(e.access.kind === 'mixed' ? { 'x-free-per-day': e.access.freePerDay } : {}),
      ...(e.tool ? { 'x-mcp-tool': e.tool.name } : {}),
      ...(e.handler ? {} : { 'x-status': 'planned' }),
      ...(e.access.kind === 'key' ? { security: [{ svcKey: [] }, { bearerKey: [] }] } : e.access.kind === 'admin' ? { security: [{ bearerKey: [] }] } : {}),
    }
    if (e.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(e.body, 'input') } } }
    ;(paths[e.path] ??= {})[e.method.toLowerCase()] = op
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Chain Intelligence API', version: '0.3.0', description: DEFINITIONS_MARKDOWN },
    paths,
    components: {
      securitySchemes: {
        svcKey: { type: 'apiKey', in: 'header', name: 'x-svc-key' },
        bearerKey: { type: 'http', scheme: 'bearer' },
      },
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
