import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { AccessGate } from './access/gate.ts'
import type { AnyEndpoint } from '../core/endpoint/types.ts'
import type { ApiDeps, ServedEndpoint } from '../core/endpoint/deps.ts'
import { ApiError, unavailableAsApiError } from '../core/endpoint/errors.ts'
import { buildOpenApi } from './openapi.ts'
import { doorKeyBeforeBody } from './access/pre-body.ts'
import { JSON_BODY_LIMIT_BYTES, LARGE_BODY_LIMIT_BYTES } from '../core/endpoint/body-limits.ts'
import { CLICKHOUSE_PATH } from './clickhouse-door.ts'
import { capConnections } from './connection-cap.ts'
import { largeBodySlots } from './large-bodies.ts'
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.ts'
import { allowedMethods, registerCatalogRoutes } from './routes.ts'
import { createKeptLane, laneInFront } from './kept-lane.ts'
import { recordRequest } from './request-record.ts'

/** Largest request body any route accepts: the identify screenshot (base64) and the SQL doors. */
export const BODY_LIMIT_BYTES = LARGE_BODY_LIMIT_BYTES

/** Fastify's own failures (bad JSON, wrong content type, too large) in our error model. */
function fromFastifyError(err: FastifyError, bodyLimit: number): ApiError {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', `The request body exceeds ${bodyLimit} bytes.`, { max_bytes: bodyLimit })
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
  const { config } = deps
  const app = Fastify({
    logger: false,
    // Routes declare their own limit (core/endpoint/body-limits.ts); anything else reads a JSON route's.
    bodyLimit: JSON_BODY_LIMIT_BYTES,
    // A hop count trusts that many proxies in front of us, whatever their addresses.
    trustProxy: typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : (trust ?? false),
    // The whole request, headers and body, within HTTP_REQUEST_TIMEOUT_MS (then 408 and closed);
    // the answer is not under it (Node stops the clock once the request is read). A connection
    // silent for HTTP_IDLE_TIMEOUT_MS either way is closed: no route streams (MCP answers JSON).
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    connectionTimeout: config.HTTP_IDLE_TIMEOUT_MS,
    keepAliveTimeout: config.HTTP_KEEPALIVE_TIMEOUT_MS,
    http: {
      headersTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
      // Node looks for requests past their time this often (default 30 s: a slow body would
      // then hold its socket up to 30 s past the timeout).
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(config.HTTP_REQUEST_TIMEOUT_MS / 4))),
    },
  })
  const { logger } = deps
  capConnections(app.server, {
    total: config.HTTP_MAX_CONNECTIONS,
    // Behind a trusted proxy every connection comes from the proxy: only the total is capped.
    perAddress: trust === undefined ? config.HTTP_MAX_CONNECTIONS_PER_IP : null,
    onRefused: (reason) => logger.warn({ reason }, 'connection refused: over the connection cap'),
  })

  // Hooks on every request take a callback, not a promise: an async hook costs promises (and
  // their GC) per request.
  app.addHook('onResponse', (req, reply, done) => {
    recordRequest(deps, req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime)
    done()
  })

  app.setErrorHandler((err: FastifyError, req, reply) => {
    // A store or ClickHouse that does not answer is a 503 the client may retry, not our failure.
    const unavailable = unavailableAsApiError(err)
    if (unavailable) logger.warn({ err: err.message, url: req.url }, 'dependency unavailable')
    const undeclared = !req.routeOptions.url && !(err instanceof ApiError) && !unavailable ? unrouted(req) : null
    const apiErr = err instanceof ApiError ? err : (unavailable ?? undeclared ?? fromFastifyError(err, req.routeOptions.bodyLimit ?? JSON_BODY_LIMIT_BYTES))
    if (apiErr.status >= 500 && !(err instanceof ApiError) && !unavailable) logger.error({ err, url: req.url }, 'request failed')
    if (apiErr.headers) reply.headers(apiErr.headers)
    // Refused before its body arrived (access, a slot, a declared length over the limit): close
    // the connection after answering instead of reading the rest of the body.
    if (!req.raw.complete) reply.header('connection', 'close')
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
  app.addHook('onRequest', (req, _reply, done) => {
    const q = req.url.indexOf('?')
    if (q < 0) return done()
    try {
      decodeURIComponent(req.url.slice(q + 1).replace(/\+/g, ' '))
    } catch {
      return done(notUtf8('query'))
    }
    done()
  })
  const json = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    // Nesting is counted on the bytes first: JSON.parse of millions of brackets holds the event loop for seconds.
    if (nestsDeeperThan(body as Buffer)) {
      return done(new ApiError('invalid_parameter', `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`, { parameter: 'body', in: 'body', max_depth: MAX_JSON_DEPTH }), undefined)
    }
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

  // Every route that reads a large body takes a slot for it (after its access check, before the
  // body). The SQL door (a plugin of its own) reads a query body up to the large limit once its
  // key is checked.
  const takeSlot = largeBodySlots({ total: config.HTTP_LARGE_BODIES_MAX, perAddress: config.HTTP_LARGE_BODIES_PER_IP })
  app.addHook('onRoute', (route) => {
    if (route.url === CLICKHOUSE_PATH || route.url === `${CLICKHOUSE_PATH}/`) {
      route.bodyLimit = LARGE_BODY_LIMIT_BYTES
      route.onRequest = [doorKeyBeforeBody(deps.keys)]
    }
    if ((route.bodyLimit ?? JSON_BODY_LIMIT_BYTES) > JSON_BODY_LIMIT_BYTES) {
      const own = route.onRequest ? (Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) : []
      route.onRequest = [...own, takeSlot] as typeof route.onRequest
    }
  })

  // Behind a trusted proxy the client's address is Fastify's to work out: no lane.
  const lane = trust === undefined ? createKeptLane(deps, gate) : undefined
  registerCatalogRoutes(app, catalog, deps, gate, lane)
  if (lane) {
    laneInFront(app.server, lane)
    app.addHook('preClose', (done) => {
      lane.close()
      done()
    })
  }

  // The interactive reference reads the same generated document as /openapi.json.
  await app.register(swagger, { mode: 'static', specification: { document: buildOpenApi(catalog) as never } })
  await app.register(swaggerUi, { routePrefix: '/docs' })

  for (const p of plugins) await p(app)
  return app
}
