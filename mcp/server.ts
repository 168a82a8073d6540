import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import type { AccessGate } from '../api/access/gate.ts'
import type { AnyEndpoint, RequestInfo } from '../core/endpoint/types.ts'
import type { ApiDeps, ServedEndpoint } from '../core/endpoint/deps.ts'
import { ApiError, unavailableAsApiError } from '../core/endpoint/errors.ts'
import { invokeEndpoint } from '../api/routes.ts'

/** Hosted tool server identity (spec: Versioning). */
export const MCP_SERVER_INFO = { name: 'svc-chain-intel', version: '0.6.1' }
export const MCP_PROTOCOL_VERSION = '2025-06-18'

const SHARED_VALIDATOR = new AjvJsonSchemaValidator()

interface ToolConfig {
  title: string
  description: string
  inputSchema: z.ZodObject
  annotations: { readOnlyHint: boolean; openWorldHint: boolean }
}
const toolLists = new WeakMap<ServedEndpoint[], Array<{ e: ServedEndpoint; config: ToolConfig }>>()

/** The catalog's tools and their definitions, made once per catalog rather than once per call. */
function toolsOf(catalog: ServedEndpoint[]): Array<{ e: ServedEndpoint; config: ToolConfig }> {
  let tools = toolLists.get(catalog)
  if (!tools) {
    tools = catalog
      .filter((e) => e.tool)
      .map((e) => ({
        e,
        config: {
          title: e.summary,
          description: `${e.tool!.description ?? e.description} (${e.method} ${e.path})`,
          // An object schema made here, once: given a raw shape, the SDK builds one per
          // registration, which is per call (a server per call): 15% of a tool call's CPU.
          inputSchema: z.object(toolInputShape(e)),
          annotations: { readOnlyHint: e.method === 'GET', openWorldHint: false },
        },
      }))
    toolLists.set(catalog, tools)
  }
  return tools
}

/** The tool's input: the endpoint's path, query and body fields as one object. */
function toolInputShape(e: AnyEndpoint): z.ZodRawShape {
  const shape: z.ZodRawShape = {}
  for (const part of [e.params, e.query]) if (part) Object.assign(shape, part.shape)
  if (e.body && e.body instanceof z.ZodObject) Object.assign(shape, e.body.shape)
  return shape
}

function splitInput(e: AnyEndpoint, args: Record<string, unknown>) {
  const pick = (keys: string[]) => Object.fromEntries(keys.filter((k) => k in args).map((k) => [k, args[k]]))
  return {
    params: pick(Object.keys(e.params?.shape ?? {})),
    query: pick(Object.keys(e.query?.shape ?? {})),
    body: e.body instanceof z.ZodObject ? pick(Object.keys(e.body.shape)) : undefined,
  }
}

/** A failure as a tool result: our error body, as text and as structured content. */
function toolError(err: ApiError): CallToolResult {
  const body = err.body()
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body as unknown as Record<string, unknown> }
}

/**
 * An MCP server whose tools are generated from the endpoint catalog: one tool per endpoint
 * that names one, with the same schemas, the same handler and the same access gate. Domain
 * failures (bad input, payment required, not found) and an unavailable dependency come back
 * as results with isError and our error body; the arguments the tool receives are the raw
 * ones, validated by the endpoint's own schemas. `call.info` is the HTTP call the server is
 * answering (mcp/http.ts reuses a server for one call after another).
 */
export function createMcpServer(catalog: ServedEndpoint[], deps: ApiDeps, gate: AccessGate, call: { info: RequestInfo }): McpServer {
  // Not an Ajv instance per server: building one was a sixth of a tool call's CPU, and the
  // validator keeps no per-call state.
  const server = new McpServer(MCP_SERVER_INFO, { capabilities: { tools: {} }, jsonSchemaValidator: SHARED_VALIDATOR })
  for (const { e, config } of toolsOf(catalog)) {
    server.registerTool(
      e.tool!.name,
      config,
      async (args: Record<string, unknown>, extra): Promise<CallToolResult> => {
        // The call's own headers, with the address and channel /mcp was reached by.
        const reached = call.info
        const info: RequestInfo = extra.requestInfo ? { ip: reached.ip, headers: extra.requestInfo.headers, channel: reached.channel } : reached
        try {
          const { result } = await invokeEndpoint(e, splitInput(e, args), info, deps, gate)
          const json = result as Record<string, unknown>
          return { content: [{ type: 'text', text: JSON.stringify(json) }], structuredContent: json }
        } catch (err) {
          if (err instanceof ApiError) return toolError(err)
          // Left to the SDK, a store or ClickHouse that is down would come back as its raw
          // message (hosts, ports) rather than the retryable error an agent can act on.
          const unavailable = unavailableAsApiError(err)
          if (!unavailable) throw err
          deps.logger.warn({ err: (err as Error).message, tool: e.tool!.name }, 'dependency unavailable')
          return toolError(unavailable)
        }
      },
    )
  }
  return server
}
