import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { AccessGate } from './access/gate.ts'
import type { AnyEndpoint } from './catalog/types.ts'
import type { ApiDeps, ServedEndpoint } from './deps.ts'
import { ApiError, unavailableAsApiError } from './errors.ts'
import { buildOpenApi } from './openapi.ts'
import { allowedMethods, registerCatalogRoutes } from './routes.ts'

/** Largest accepted request body: the identify screenshot (base64) is the biggest input. */
export const BODY_LIMIT_BYTES = 8 * 1024 * 1024

/** Fastify's own failures (bad JSON, wrong content type, too large) in our error model. */
function fromFastifyError(err: FastifyError): ApiError {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', `The request body exceeds ${BODY_LIMIT_BYTES} bytes.`)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the request body as application/json.')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_parameter', 'The request body is not valid JSON.', { parameter: 'body', in: 'body' })
    default:
      if (err.statusCode === 400) return new ApiError('invalid_parameter', err.message)
      return new ApiError('internal_error')
  }
}

export interface AppOptions {
  deps: ApiDeps
  gate: AccessGate
  catalog: ServedEndpoint[]
  /** Extra routes mounted on the same server (the MCP endpoint). */
  plugins?: Array<(app: FastifyInstance) => Promise<void> | void>
}

/** The Fastify app: catalog routes, the error model, /docs, and request metrics. */
export async function buildApp({ deps, gate, catalog, plugins = [] }: AppOptions): Promise<FastifyInstance> {
  // request.ip is the client for quotas and rate caps: X-Forwarded-For only from trusted proxies.
  const trust = deps.config.TRUST_PROXY
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    // A hop count trusts that many proxies in front of us, whatever their addresses.
    trustProxy: typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : (trust ?? false),
  })
  const { logger, metrics } = deps

  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched'
    const seconds = reply.elapsedTime / 1000
    metrics.requests.inc({ route, status: String(reply.statusCode) })
    metrics.requestLatency.observe({ route }, seconds)
    logger.info({ method: req.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request')
  })

  app.setErrorHandler((err: FastifyError, req, reply) => {
    // A store or ClickHouse that does not answer is a 503 the client may retry, not our failure.
    const unavailable = unavailableAsApiError(err)
    if (unavailable) logger.warn({ err: err.message, url: req.url }, 'dependency unavailable')
    const undeclared = !req.routeOptions.url && !(err instanceof ApiError) && !unavailable ? unrouted(req) : null
    const apiErr = err instanceof ApiError ? err : (unavailable ?? undeclared ?? fromFastifyError(err))
    if (apiErr.status >= 500 && !(err instanceof ApiError) && !unavailable) logger.error({ err, url: req.url }, 'request failed')
    if (apiErr.headers) reply.headers(apiErr.headers)
    if (apiErr.code === 'rate_limited' && !reply.getHeader('retry-after')) reply.header('retry-after', '60')
    reply.status(apiErr.status).send(apiErr.body())
  })

  // A declared path called with another method is 405 with Allow (RFC 9110), before any access
  // check and before its body is read (Fastify may fail on the body of an unmatched route first).
  const allowed = allowedMethods(catalog)
  const unrouted = (req: FastifyRequest): ApiError => {
    const path = req.url.split('?')[0]!
    const methods = allowed(path)
    return methods.length
      ? new ApiError('method_not_allowed', `${req.method} is not allowed on ${path}; use ${methods.join(', ')}.`, { allow: methods }, { allow: methods.join(', ') })
      : new ApiError('not_found', `No route ${req.method} ${path}.`)
  }
  app.setNotFoundHandler((req) => {
    throw unrouted(req)
  })

  // Request text must be UTF-8: a query or JSON body that is not is refused, not read as U+FFFD.
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  const notUtf8 = (where: 'query' | 'body') =>
    new ApiError('invalid_parameter', `The request ${where === 'query' ? "URL's query" : 'body'} is not valid UTF-8.`, { parameter: where, in: where })
  app.addHook('onRequest', async (req) => {
    const q = req.url.indexOf('?')
    if (q < 0) return
    try {
      decodeURIComponent(req.url.slice(q + 1).replace(/\+/g, ' '))
    } catch {
      throw notUtf8('query')
    }
  })
  const json = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    let text: string
    try {
      text = utf8.decode(body as Buffer)
    } catch {
      return done(notUtf8('body'), undefined)
    }
    json(req, text, done)
  })

  // OAuth clients post the token request as a form (/mcp/account/token); it parses to the same object as JSON.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })

  registerCatalogRoutes(app, catalog, deps, gate)

  // The interactive reference reads the same generated document as /openapi.json.
  await app.register(swagger, { mode: 'static', specification: { document: buildOpenApi(catalog) as never } })
  await app.register(swaggerUi, { routePrefix: '/docs' })

  for (const p of plugins) await p(app)
  return app
}
