import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import type { AccessGate } from './access/gate.ts'
import type { AccessGrant } from '../core/endpoint/grant.ts'
import { admitBeforeBody } from './access/pre-body.ts'
import { bodyLimitOf, takesLargeBody } from '../core/endpoint/body-limits.ts'
import { ADDRESS_MESSAGE } from '../core/endpoint/schemas.ts'
import type { AnyEndpoint, RawAnswer, RequestInfo } from '../core/endpoint/types.ts'
import type { ApiDeps, ServedEndpoint } from '../core/endpoint/deps.ts'
import { ApiError } from '../core/endpoint/errors.ts'
import { responseBytes } from '../core/serving/rendered-json.ts'
import { keepParse, keepRequestParse, keptParse, keptRequestParse, type ParsedInput } from '../core/endpoint/parsed-inputs.ts'
import { wokenAt } from '../core/serving/long-poll.ts'
import { API_CONSUMER, engineFor } from '../core/engine-accounting.ts'

/** Query parameter names that look like a credential: keys go in headers only. */
const KEY_PARAMS = new Set(['key', 'api_key', 'apikey', 'x-svc-key', 'access_token', 'token_key'])

/** `/token/{address}` → `/token/:address` */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1')
}

/**
 * The methods each declared path answers, as a lookup from a request path: what a 405 lists in
 * `Allow` (HEAD with GET: Fastify answers it for every GET route). Empty for an undeclared path.
 */
export function allowedMethods(catalog: Array<Pick<AnyEndpoint, 'method' | 'path'>>): (path: string) => string[] {
  const byPattern = new Map<string, { re: RegExp; methods: Set<string> }>()
  for (const e of catalog) {
    const entry = byPattern.get(e.path) ?? { re: new RegExp(`^${e.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}$`), methods: new Set<string>() }
    entry.methods.add(e.method)
    if (e.method === 'GET') entry.methods.add('HEAD')
    byPattern.set(e.path, entry)
  }
  const order = ['GET', 'HEAD', 'POST', 'DELETE']
  return (path) => {
    const methods = new Set<string>()
    for (const { re, methods: m } of byPattern.values()) if (re.test(path)) for (const x of m) methods.add(x)
    return order.filter((x) => methods.has(x))
  }
}

const numericKeyCache = new WeakMap<object, Set<string>>()

/** The parameters of a query schema that are numbers (or integers). */
function numericKeys(schema: z.ZodType): Set<string> {
  let keys = numericKeyCache.get(schema)
  if (!keys) {
    const props = ((z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { type?: unknown }> }).properties ?? {})
    keys = new Set(Object.entries(props).filter(([, p]) => p.type === 'integer' || p.type === 'number').map(([k]) => k))
    numericKeyCache.set(schema, keys)
  }
  return keys
}

/**
 * A path's or query's text, the key of its kept parse: names and string values between control
 * characters a URL part rarely holds (cheaper than JSON.stringify, which the request path paid on
 * every call). A part holding those characters, or a repeated query name (an array), is written as
 * JSON, whose text never holds a raw control character: the two forms never coincide.
 */
function inputText(value: unknown): string {
  if (value === null || value === undefined) return ''
  let text = ''
  for (const k in value as Record<string, unknown>) {
    const v = (value as Record<string, unknown>)[k]
    if (typeof v !== 'string' || hasSeparator(k) || hasSeparator(v)) return JSON.stringify(value)
    text += `${k}\u0000${v}\u0001`
  }
  return text
}
const hasSeparator = (s: string) => s.includes('\u0000') || s.includes('\u0001')

/** Parse one part of a request with its zod schema, turning failures into our 400 errors. */
export function parsePart<S extends z.ZodType>(schema: S | undefined, value: unknown, where: string): z.output<S> {
  if (!schema) return {} as z.output<S>
  // A path or query is parsed once per distinct text (core/endpoint/parsed-inputs.ts); bodies are not kept.
  const text = where === 'body' ? undefined : inputText(value)
  const kept = text === undefined ? undefined : keptParse(schema, text)
  if (kept !== undefined) return kept as z.output<S>
  // `?limit=` is not a number (zod's coercion would read it as 0).
  if (where === 'query' && value && typeof value === 'object') {
    const numeric = numericKeys(schema)
    const empty = Object.entries(value).find(([k, v]) => v === '' && numeric.has(k))
    if (empty) throw new ApiError('invalid_parameter', `${empty[0]}: expected a number, got an empty value.`, { parameter: empty[0], in: where, expected: 'a number' })
  }
  const r = schema.safeParse(value ?? {})
  if (r.success) return text === undefined ? r.data : keepParse(schema, text, r.data)
  const issue = r.error.issues[0]!
  const parameter = issue.path.length ? issue.path.join('.') : where
  const details = { parameter, in: where, expected: issue.message }
  if (issue.message === ADDRESS_MESSAGE) throw new ApiError('invalid_address', `${parameter} is not a 0x address of 40 hex characters.`, details)
  throw new ApiError('invalid_parameter', `${parameter}: ${issue.message}.`, details)
}

/**
 * A Fastify request as the gate and handlers see it. The absolute URL is put together only when
 * asked (x402 names it as the payment's resource): most calls never read it.
 */
class FastifyRequestInfo implements RequestInfo {
  readonly ip: string
  readonly headers: RequestInfo['headers']
  constructor(
    private readonly req: FastifyRequest,
    readonly channel?: 'mcp',
  ) {
    this.ip = req.ip
    this.headers = req.headers
  }
  get url(): string {
    return `${this.req.protocol}://${this.req.host}${this.req.url}`
  }
}

export function requestInfo(req: FastifyRequest, channel?: 'mcp'): RequestInfo {
  return new FastifyRequestInfo(req, channel)
}

/** The scheme and host a request was made to (absent for calls made in-process). */
export const originOf = (info: RequestInfo) => (info.url ? new URL(info.url).origin : '')

/**
 * Run one catalog endpoint for an already-parsed request, through the access gate; the engine
 * statements its handler runs count as the API's (core/engine-accounting.ts), by path.
 */
export function invokeEndpoint(
  e: ServedEndpoint,
  input: { params: unknown; query: unknown; body: unknown },
  info: RequestInfo,
  deps: ApiDeps,
  gate: AccessGate,
) {
  return invokeGated(e, parseInput(e, input), info, depsOf(e, deps), gate)
}

const endpointDeps = new WeakMap<ApiDeps, Map<string, ApiDeps>>()

/**
 * `deps` as an endpoint's handler sees it (made once per endpoint): every field is `deps`' own, as
 * it is now (a view on it, not a copy), but `ch` counts the handler's statements under the
 * endpoint's path.
 */
export function depsOf(e: ServedEndpoint, deps: ApiDeps): ApiDeps {
  let byPath = endpointDeps.get(deps)
  if (!byPath) endpointDeps.set(deps, (byPath = new Map()))
  let d = byPath.get(e.path)
  if (!d) {
    let labeled: { of: ApiDeps['ch']; ch: ApiDeps['ch'] } | undefined
    d = Object.create(deps, {
      ch: {
        get: () => {
          if (labeled?.of !== deps.ch) labeled = { of: deps.ch, ch: engineFor(deps.ch, API_CONSUMER, e.path) }
          return labeled.ch
        },
      },
    }) as ApiDeps
    byPath.set(e.path, d)
  }
  return d
}

const notServed = (e: ServedEndpoint) => new ApiError('not_implemented', `${e.method} ${e.path} is declared by the contract but not served yet.`)

/** A request's path, query and body parsed with the endpoint's schemas. */
function parseInput(e: ServedEndpoint, input: { params: unknown; query: unknown; body: unknown }): ParsedInput {
  if (!e.handler) throw notServed(e)
  return { params: parsePart(e.params, input.params, 'path'), query: parsePart(e.query, input.query, 'query'), body: parsePart(e.body, input.body, 'body') }
}

/**
 * A GET's path and query, refused when the query names a credential, then parsed: kept per URL
 * text (core/endpoint/parsed-inputs.ts), since a GET's URL is all of its input.
 */
function parseGet(e: ServedEndpoint, req: FastifyRequest): ParsedInput {
  const kept = keptRequestParse(e, req.url)
  if (kept) return kept
  const query = refuseKeyParams((req.query ?? {}) as Record<string, unknown>)
  return keepRequestParse(e, req.url, parseInput(e, { params: req.params, query, body: undefined }))
}

function refuseKeyParams(query: Record<string, unknown>): Record<string, unknown> {
  for (const k of Object.keys(query)) {
    if (KEY_PARAMS.has(k.toLowerCase())) throw new ApiError('key_in_url', undefined, { parameter: k })
  }
  return query
}

/** A gated call's answer: the handler's result, headers its settlement added, and its grant. */
export interface Gated {
  result: unknown
  headers: Record<string, string>
  grant: AccessGrant
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>

/**
 * The call answered from memory, when memory decides the grant (gate.admitNow: a held key, a
 * free call) and holds the answer (the endpoint's `kept`); undefined when either must be looked
 * up. Nothing is started that it does not finish: the busy path of paid consumers, no promise.
 * The input's own checks (`validate`) run first, as on every call.
 */
export function answerNow(e: ServedEndpoint, input: ParsedInput, info: RequestInfo, deps: ApiDeps, gate: AccessGate): Gated | undefined {
  if (!e.kept) return undefined
  const params = input.params as Record<string, unknown>
  const query = input.query as Record<string, unknown>
  e.validate?.({ params, query, body: input.body }, deps)
  const grant = gate.admitNow(e, query, info)
  if (!grant) return undefined
  const result = e.kept({ params, query, body: input.body, deps, request: info, grant })
  return result === undefined ? undefined : { result, headers: NO_HEADERS, grant }
}

/**
 * The endpoint's handler behind the access gate. When memory decides the grant (gate.admitNow),
 * the endpoint's kept answer is given at once when it has one, else its handler runs with that
 * grant (no promise for the gate). Otherwise the gate admits (lookups, payments) and the handler
 * loads; a payment for an answer memory holds is verified and settled in one facilitator call.
 */
function invokeGated(e: ServedEndpoint, input: ParsedInput, info: RequestInfo, deps: ApiDeps, gate: AccessGate): Gated | Promise<Gated> {
  const params = input.params as Record<string, unknown>
  const query = input.query as Record<string, unknown>
  const body = input.body
  const handler = e.handler
  if (!handler) throw notServed(e)
  e.validate?.({ params, query, body }, deps)
  const now = gate.admitNow(e, query, info)
  if (now) {
    const ctx = { params, query, body, deps, request: info, grant: now }
    const result = e.kept?.(ctx) ?? handler(ctx)
    return result instanceof Promise ? result.then((r) => ({ result: r, headers: NO_HEADERS, grant: now })) : { result, headers: NO_HEADERS, grant: now }
  }
  return (async () => {
    const grant = await gate.admit(e, query, info, { verifyLater: e.kept !== undefined })
    const ctx = { params, query, body, deps, request: info, grant }
    if (grant.verify) {
      const paid = await keptForUnverifiedPayment(e, ctx, grant.verify)
      if (paid) return paid
    }
    const result = await handler(ctx)
    // Settle only after the handler succeeded; a settlement failure throws, so nothing is served.
    const headers = grant.settle ? await grant.settle() : NO_HEADERS
    return { result, headers, grant }
  })()
}

/**
 * A payment the gate admitted before the facilitator verified it (`verifyLater`): an answer
 * memory holds is settled with one facilitator call that verifies too (the grant's `settle()`);
 * without one, or when `kept` throws, the payment is verified before anything else happens, and
 * undefined sends the call on to its handler.
 */
async function keptForUnverifiedPayment(e: ServedEndpoint, ctx: Parameters<NonNullable<ServedEndpoint['kept']>>[0], verify: () => Promise<void>): Promise<Gated | undefined> {
  let kept: unknown
  try {
    kept = e.kept!(ctx)
  } catch (err) {
    await verify()
    throw err
  }
  if (kept !== undefined) return { result: kept, headers: await ctx.grant.settle!(), grant: ctx.grant }
  await verify()
  return undefined
}

/** What learns the URLs of GETs answered from memory (the kept lane, ./kept-lane.ts). */
export interface UrlLearner {
  learn(endpoint: ServedEndpoint, url: string, input: ParsedInput): void
}

/**
 * Register every catalog endpoint as a Fastify route. A GET answered from memory is told to
 * `lane` (./kept-lane.ts), which answers that URL's next calls before Fastify's lifecycle.
 */
export function registerCatalogRoutes(app: FastifyInstance, catalog: ServedEndpoint[], deps: ApiDeps, gate: AccessGate, lane?: UrlLearner): void {
  for (const e of catalog) {
    if (e.mountedBy) continue
    const large = takesLargeBody(e)
    app.route({
      method: e.method,
      url: fastifyPath(e.path),
      bodyLimit: bodyLimitOf(e),
      // Who may call a route with a large body is decided before that body is read.
      ...(large ? { onRequest: async (req: FastifyRequest) => admitBeforeBody(gate, deps.store, e, (req.query ?? {}) as Record<string, unknown>, requestInfo(req)) } : {}),
      handler(req: FastifyRequest, reply: FastifyReply) {
        const input = e.method === 'GET' ? parseGet(e, req) : parseInput(e, { params: req.params, query: refuseKeyParams((req.query ?? {}) as Record<string, unknown>), body: req.body })
        const gated = invokeGated(e, input, requestInfo(req), depsOf(e, deps), gate)
        if (lane && e.kept && e.method === 'GET' && !(gated instanceof Promise)) lane.learn(e, req.url, input)
        return gated instanceof Promise ? gated.then((g) => respond(e, deps, reply, g)) : respond(e, deps, reply, gated)
      },
    })
  }
}

/** A gated call's answer written to the reply. */
function respond(e: ServedEndpoint, deps: ApiDeps, reply: FastifyReply, { result, headers }: Gated): FastifyReply {
  if (headers !== NO_HEADERS) reply.headers(headers)
  const { body, contentType, headers: own } = answerBody(result)
  if (own) reply.headers(own)
  reply.type(contentType).send(body)
  answerWritten(e, deps, result)
  return reply
}

/** What an answer's body is on the wire, for Fastify's reply and the kept lane alike: a raw body with its own type and headers, else the JSON bytes. */
export function answerBody(result: unknown): { body: string | Buffer; contentType: string; headers?: Record<string, string> } {
  const raw = rawAnswer(result)
  return raw ? { body: raw.raw, contentType: raw.contentType, headers: raw.headers } : { body: responseBytes(result), contentType: JSON_TYPE }
}

/** The content type of a JSON answer (written as bytes, kept parts' bytes reused: core/serving/rendered-json.ts). */
export const JSON_TYPE = 'application/json; charset=utf-8'

/** A handler's result that is a raw body with its own type (an SVG badge, /metrics), else undefined: JSON. */
function rawAnswer(result: unknown): RawAnswer | undefined {
  return result && typeof result === 'object' && 'raw' in result && 'contentType' in result ? (result as RawAnswer) : undefined
}

/**
 * After an answer went to the socket: a woken long poll's answer is timed (send writes the bytes
 * at once, while 'finish' comes after every answer woken with it has been written).
 */
export function answerWritten(e: ServedEndpoint, deps: ApiDeps, result: unknown): void {
  const advancedAt = wokenAt(result)
  if (advancedAt !== undefined) deps.metrics.longPollAnswer.observe({ route: e.path }, (performance.now() - advancedAt) / 1000)
}
