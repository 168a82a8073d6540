import type { z } from 'zod'
import type { Feature } from '../plans.ts'
import type { AccessGrant } from './grant.ts'
import type { ErrorCode } from './errors.ts'
import type { Tag } from './tags.ts'

/** How a call to an endpoint is paid for (DESIGN §5). Prices are USD decimal strings. */
export type Access =
  | { kind: 'free'; /** Requests per minute per IP before 429. */ perMinute?: number; note?: string }
  | {
      kind: 'paid'
      price: string
      /** A query-dependent price (e.g. /feed/new tiers); null means this call is free. */
      priceFor?: (query: Record<string, unknown>) => string | null
      note?: string
    }
  | { kind: 'mixed'; price: string; freePerDay: number; note?: string }
  | { kind: 'key'; /** The plan feature the endpoint needs. */ feature?: Feature; note?: string }
  /** Operator endpoints: the SVC_ADMIN_TOKEN bearer only. */
  | { kind: 'admin'; note?: string }

export type HttpMethod = 'GET' | 'POST' | 'DELETE'

export interface RequestInfo {
  ip: string
  headers: Record<string, string | string[] | undefined>
  /** The absolute URL called (the x402 resource); absent for calls made in-process. */
  url?: string
  /**
   * Set by the MCP transport for /mcp and the tool calls it runs (never from anything the caller
   * sends): the one place a connection token is accepted.
   */
  channel?: 'mcp'
}

/** A handler's input; `D` is the part of the process's dependencies the endpoint declared it uses. */
export interface HandlerContext<P, Q, B, D> {
  params: P
  query: Q
  body: B
  deps: D
  request: RequestInfo
  /** What admitted the call (the key's hash for key-scoped data such as the watchlist). */
  grant: AccessGrant
}

/** A raw body with its content type (SVG badge, /metrics), instead of a JSON body. */
export interface RawAnswer {
  raw: string | Buffer
  contentType: string
  headers?: Record<string, string>
}

/** What a handler returns: the JSON body, or a raw body with its content type. */
export type HandlerResult<R> = R | RawAnswer

type AnyObject = z.ZodObject<z.ZodRawShape>

export interface Endpoint<
  P extends AnyObject = AnyObject,
  Q extends AnyObject = AnyObject,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
  /** The dependencies the handler uses (`unknown`: none); `never` in the catalog's view, which calls no handler. */
  D = never,
> {
  method: HttpMethod
  /** OpenAPI-style path, e.g. `/token/{address}`. */
  path: string
  summary: string
  description: string
  tags: Tag[]
  params?: P
  query?: Q
  body?: B
  /** Schema of the 200 body (JSON endpoints). */
  response: R
  /** Content type of the 200 body; JSON unless stated. */
  produces?: string
  access: Access
  /** The MCP tool this endpoint is exposed as (name carries the svc_ prefix). */
  tool?: { name: string; description?: string }
  /**
   * Error codes the handler itself can answer beyond those its declaration implies (parameters,
   * body, access, rate caps, dependencies): e.g. `conflict`, `not_found`. OpenAPI documents each.
   */
  errors?: ErrorCode[]
  /** Other success statuses answered with an empty body, by status: their description. */
  emptyResponses?: Record<string, string>
  /**
   * The most bytes of request body its route reads (413 past it); JSON_BODY_LIMIT_BYTES unless
   * given (core/endpoint/body-limits.ts). A route above that default has its access checked before the
   * body is read.
   */
  bodyLimit?: number
  /** Served by a plugin of its own (the MCP transport), not by a catalog route; documented here. */
  mountedBy?: 'mcp'
  /**
   * Checks of the parsed input that a schema cannot express with the right status (an image's
   * bytes: 413, 415). They run before the access gate, so a bad request spends no free quota
   * and no payment.
   */
  validate?: (input: { params: z.output<P>; query: z.output<Q>; body: z.output<B> }, deps: D) => void
  /** Absent while the endpoint is declared but not served yet: it answers 501 not_implemented. */
  /** Answers a promise, or the answer itself when it is at hand (kept: no promise on the busy path). */
  handler?: (ctx: HandlerContext<z.output<P>, z.output<Q>, z.output<B>, D>) => HandlerResult<z.input<R>> | Promise<HandlerResult<z.input<R>>>
  /**
   * The answer when memory holds everything it needs (kept state, nothing to load), else
   * undefined: then `handler`. Tried first on every call; a GET that has it may be answered again
   * before Fastify's lifecycle (api/kept-lane.ts). It reads only, and never starts a load.
   */
  kept?: (ctx: HandlerContext<z.output<P>, z.output<Q>, z.output<B>, D>) => HandlerResult<z.input<R>> | undefined
}

/**
 * Declare an endpoint using dependencies `D` (none unless given), e.g.
 * `defineEndpoint<Uses<'tokens'>>()({...})`. The identity function exists so TypeScript infers
 * the schemas' types; it is curried because TypeScript cannot take `D` explicitly and infer the
 * rest in one call.
 */
export function defineEndpoint<D = unknown>() {
  return <P extends AnyObject, Q extends AnyObject, B extends z.ZodType, R extends z.ZodType>(e: Endpoint<P, Q, B, R, D>): Endpoint<P, Q, B, R, D> => e
}

/**
 * The catalog as the documents (OpenAPI, the x402 catalog) and the gate see it; with `D`, as a
 * caller that supplies those dependencies to the handlers sees it (every endpoint whose needs
 * `D` covers is one).
 */
export type AnyEndpoint<D = never> = Endpoint<AnyObject, AnyObject, z.ZodType, z.ZodType, D>
