import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { FastifyInstance } from 'fastify'
import type { AccessGate } from '../api/access/gate.ts'
import type { AnyEndpoint } from '../api/catalog/types.ts'
import type { ApiDeps, ServedEndpoint } from '../api/deps.ts'
import { mcpEndpoint } from '../api/endpoints/meta.ts'
import { ApiError } from '../api/errors.ts'
import { originOf, requestInfo } from '../api/routes.ts'
import { createMcpServer } from './server.ts'

/**
 * Mount the MCP server at /mcp (streamable HTTP, stateless: every POST is answered on its own,
 * so any API process behind a load balancer can take any call).
 */
export function mcpPlugin(catalog: ServedEndpoint[], deps: ApiDeps, gate: AccessGate) {
  return async (app: FastifyInstance) => {
    app.route({
      method: ['POST', 'GET', 'DELETE'],
      url: '/mcp',
      async handler(req, reply) {
        if (req.method !== 'POST') {
          // Stateless server: no standalone SSE stream and no sessions to delete.
          return reply.status(405).header('allow', 'POST').send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: use POST.' }, id: null })
        }
        // /mcp is a key endpoint: a key, a connector's connection token or the operator token.
        // Without one: 401 naming where an assistant that cannot send headers gets a token.
        const info = requestInfo(req)
        try {
          await gate.admit(mcpEndpoint, {}, info)
        } catch (err) {
          if (!(err instanceof ApiError)) throw err
          const metadata = `${originOf(info)}/.well-known/oauth-protected-resource`
          return reply
            .status(err.status)
            .header('www-authenticate', `Bearer resource_metadata="${metadata}"${err.code === 'invalid_key' ? ', error="invalid_token"' : ''}`)
            .send(err.body())
        }
        const server = createMcpServer(catalog, deps, gate, info)
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
        reply.hijack()
        reply.raw.on('close', () => {
          void transport.close()
          void server.close()
        })
        await server.connect(transport)
        await transport.handleRequest(req.raw, reply.raw, req.body)
      },
    })
  }
}
