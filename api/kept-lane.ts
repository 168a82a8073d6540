import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { TLSSocket } from 'node:tls'
import type { AccessGate } from './access/gate.ts'
import type { ApiDeps, ServedEndpoint } from '../core/endpoint/deps.ts'
import type { RequestInfo } from '../core/endpoint/types.ts'
import type { ParsedInput } from '../core/endpoint/parsed-inputs.ts'
import { LruMap } from '../core/serving/lru-map.ts'
import { answerBody, answerNow, answerWritten, depsOf, fastifyPath, type Gated, type UrlLearner } from './routes.ts'
import { recordRequest } from './request-record.ts'

/** URLs the lane knows, least recently used forgotten first (each a string and a reference). */
export const KEPT_LANE_URLS = 8_192

/**
 * The longest URL text the lane learns. A kept answer's URL is short (`/token/0x…` is 49
 * characters); a caller may pad one with a query string the endpoint ignores up to the server's
 * header limit (16 KB), and 8,192 such URLs would hold 128 MB. Longer URLs are answered by
 * Fastify every time; the lane's URLs hold at most 8,192 x 256 characters.
 */
export const KEPT_LANE_MAX_URL_CHARS = 256

/**
 * The kept lane: a GET the router has already answered from memory is answered again before
 * Fastify's request lifecycle, with the same bytes. Why: once an answer is kept and a key held, a
 * repeated call is a few lookups, and Fastify's lifecycle (routing, hooks, the reply's checks) was
 * most of what the API's thread did besides writing the socket. `npm run bench -- load` (the
 * default world, /token over 200 tokens at 16 connections from a separate process): 38.7k req/s,
 * 0.58x a bare server, against 29.1k (0.43x) for the code before the lane the same day (stop 70).
 *
 * What takes it: a GET without a body whose exact URL text the router answered from memory
 * before (`learn`, from routes.ts: its route, the query's UTF-8 check, the refusal of keys in the
 * URL and its parse all passed for this text; the frozen parse is kept with it), admitted from memory
 * again (gate.admitNow: a held key on an endpoint its plan covers, a free call without a rate
 * cap) and answered from memory again (the endpoint's `kept`, which starts no load). Anything
 * else goes to Fastify with nothing written: a payment, the operator token, a key not held
 * (unknown, revoked, gone from the cache), an answer no longer kept, a parameter the endpoint's
 * own check refuses, a server closing, and every request behind a trusted proxy (the client's
 * address is Fastify's to work out). Counted in the same request metrics and request log as
 * Fastify's answers, under the same route, and in svc_http_kept_lane_answers_total.
 */
export interface KeptLane extends UrlLearner {
  /** The router answered this GET's URL (parsed as `input`) from memory: its next calls may take the lane. */
  learn(endpoint: ServedEndpoint, url: string, input: ParsedInput): void
  /** Answer the request when it may take the lane; false (nothing written) when Fastify must. */
  serve(req: IncomingMessage, res: ServerResponse): boolean
  /** The server is closing: every request goes to Fastify (which answers 503 while closing). */
  close(): void
}

export function createKeptLane(deps: ApiDeps, gate: AccessGate): KeptLane {
  const urls = new LruMap<{ endpoint: ServedEndpoint; route: string; input: ParsedInput; deps: ApiDeps }>(KEPT_LANE_URLS)
  let closing = false

  /** The answer's bytes and headers, before anything is written (a body that cannot be made goes to Fastify's error answer). */
  const written = ({ result }: Gated): { body: string | Buffer; head: Record<string, string | number> } => {
    const { body, contentType, headers } = answerBody(result)
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length
    return { body, head: { ...headers, 'content-type': contentType, 'content-length': length } }
  }

  return {
    learn(endpoint, url, input) {
      if (url.length <= KEPT_LANE_MAX_URL_CHARS && !urls.has(url)) urls.set(url, { endpoint, route: fastifyPath(endpoint.path), input, deps: depsOf(endpoint, deps) })
    },
    serve(req, res) {
      if (closing || req.method !== 'GET') return false
      const url = req.url!
      const known = urls.get(url)
      if (!known) return false
      // A GET that sends a body goes through Fastify, which reads (or refuses) it.
      if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return false
      const { endpoint: e, route, input } = known
      const started = performance.now()
      const info = new LaneRequestInfo(req)
      let answered: Gated | undefined
      let answer: ReturnType<typeof written>
      try {
        answered = answerNow(e, input, info, known.deps, gate)
        if (!answered) return false
        answer = written(answered)
      } catch {
        return false
      }
      res.writeHead(200, answer.head)
      res.end(answer.body)
      answerWritten(e, deps, answered.result)
      recordRequest(deps, 'GET', route, 200, performance.now() - started, true)
      return true
    },
    close() {
      closing = true
    },
  }
}

/**
 * A request as the gate and handlers see it, for a server without a trusted proxy in front (a
 * class, as routes.ts's FastifyRequestInfo: the gate's reads of it stay fast).
 */
class LaneRequestInfo implements RequestInfo {
  readonly ip: string
  readonly headers: RequestInfo['headers']
  constructor(private readonly req: IncomingMessage) {
    this.ip = req.socket.remoteAddress ?? ''
    this.headers = req.headers
  }
  get url(): string {
    return `${(this.req.socket as TLSSocket).encrypted ? 'https' : 'http'}://${this.req.headers.host ?? ''}${this.req.url}`
  }
}

/**
 * Put the lane in front of the server's request listeners (Fastify's): a request it answers never
 * reaches them. Wraps `emit`, as the connection cap does for connections (./connection-cap.ts).
 */
export function laneInFront(server: Server, lane: KeptLane): void {
  const emit = server.emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean
  server.emit = function (this: Server, event: string | symbol, req?: unknown, res?: unknown) {
    if (event === 'request' && lane.serve(req as IncomingMessage, res as ServerResponse)) return true
    // eslint-disable-next-line prefer-rest-params
    return emit.apply(this, arguments as unknown as [string | symbol, ...unknown[]])
  } as unknown as Server['emit']
}
