import type { IncomingMessage } from 'node:http'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { FastifyInstance } from 'fastify'
import type { AccessGate } from '../api/access/gate.ts'
import type { AnyEndpoint, RequestInfo } from '../core/endpoint/types.ts'
import type { ApiDeps, ServedEndpoint } from '../core/endpoint/deps.ts'
import { mcpEndpoint } from '../api/endpoints/meta.ts'
import { bodyLimitOf } from '../core/endpoint/body-limits.ts'
import { ApiError } from '../core/endpoint/errors.ts'
import { originOf, parsePart, requestInfo } from '../api/routes.ts'
import { createMcpServer } from './server.ts'

/** Tool servers kept between calls: enough for the calls a process answers at once. */
const MCP_IDLE_SERVERS = 64

/**
 * Mount the MCP server at /mcp (streamable HTTP, stateless: every POST is answered on its own,
 * so any API process behind a load balancer can take any call).
 */
export function mcpPlugin(catalog: ServedEndpoint[], deps: ApiDeps, gate: AccessGate) {
  // The transport is one per call (the SDK refuses to reuse a stateless one: JSON-RPC ids of
  // different clients would collide), but a server, with its tools registered, serves one call
  // after another: made per call, it was about 15% of a tool call's CPU (509-513 -> 432-435 µs).
  const idle: Array<{ server: McpServer; call: { info: RequestInfo } }> = []
  const newServer = (info: RequestInfo) => {
    const call = { info }
    return { server: createMcpServer(catalog, deps, gate, call), call }
  }
  return async (app: FastifyInstance) => {
    // POST only (stateless: no standalone SSE stream and no sessions to delete); GET and DELETE
    // answer 405 with Allow from the app's not-found handler, like any undeclared method.
    app.route({
      method: 'POST',
      url: '/mcp',
      bodyLimit: bodyLimitOf(mcpEndpoint),
      // /mcp is a key endpoint: a key, a connector's connection token or the operator token,
      // checked before the body (up to the large limit: a tool call may carry a screenshot) is read.
      // Without one: 401 naming where an assistant that cannot send headers gets a token.
      async onRequest(req, reply) {
        const info: RequestInfo = requestInfo(req, 'mcp')
        try {
          await gate.admit(mcpEndpoint, {}, info)
        } catch (err) {
          if (!(err instanceof ApiError)) throw err
          const metadata = `${originOf(info)}/.well-known/oauth-protected-resource`
          return reply
            .status(err.status)
            .headers(err.headers ?? {})
            .header('www-authenticate', `Bearer resource_metadata="${metadata}"${err.code === 'invalid_key' ? ', error="invalid_token"' : ''}`)
            .send(err.body())
        }
      },
      async handler(req, reply) {
        const info: RequestInfo = requestInfo(req, 'mcp')
        // What the transport would refuse in JSON-RPC's shape is refused here in ours, first.
        // Answers are JSON (enableJsonResponse): any Accept that admits JSON is served, and the
        // transport (which wants both types named) is shown the one it expects.
        const accept = String(req.headers.accept ?? '').trim()
        if (accept && !/\*\/\*|application\/\*|application\/json/i.test(accept)) {
          throw new ApiError('not_acceptable', 'This endpoint answers application/json: send Accept: application/json, text/event-stream.', { parameter: 'accept', in: 'header' })
        }
        setRawHeader(req.raw, 'accept', 'application/json, text/event-stream')
        if (!/^application\/json\s*(;|$)/i.test(String(req.headers['content-type'] ?? ''))) throw new ApiError('unsupported_media_type', 'Send the JSON-RPC message as application/json.')
        parsePart(mcpEndpoint.body, req.body, 'body')
        const pooled = idle.pop() ?? newServer(info)
        pooled.call.info = info
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
        reply.hijack()
        reply.raw.on('close', () => {
          // Given back only after an answered call: a call whose client left may still run a tool.
          const answered = reply.raw.writableFinished
          void pooled.server.close().then(() => {
            if (answered && pooled.server.server.transport === undefined && idle.length < MCP_IDLE_SERVERS) idle.push(pooled)
          })
        })
        await pooled.server.connect(transport)
        await transport.handleRequest(req.raw, reply.raw, req.body)
      },
    })
  }
}

/** Replace a header of a Node request (both views of it: the transport reads the raw list). */
function setRawHeader(raw: IncomingMessage, name: string, value: string): void {
  raw.headers[name] = value
  const list = raw.rawHeaders
  for (let i = list.length - 2; i >= 0; i -= 2) if (list[i]!.toLowerCase() === name) list.splice(i, 2)
  list.push(name, value)
}
