import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { catalog } from '../../api/catalog/index.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'

let env: Embedded
let base: string
/** A founders key: /mcp is a key endpoint. */
let key: string

beforeAll(async () => {
  env = await startEmbedded()
  await env.ingestThrough(150)
  base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
  key = (await env.api.deps.keys.create('founders')).key
})
afterAll(async () => env?.close())

async function connect(headers: Record<string, string> = { 'x-svc-key': key }) {
  const client = new Client({ name: 'svc-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }))
  return client
}

describe('MCP server at /mcp', () => {
  it('tools/list gives the 23 svc_ tools declared in the catalog', async () => {
    const client = await connect()
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name).sort()
    expect(names).toHaveLength(23)
    expect(names).toEqual(catalog.filter((e) => e.tool).map((e) => e.tool!.name).sort())
    for (const n of ['svc_agent_features', 'svc_follows', 'svc_identify', 'svc_report', 'svc_verdict', 'svc_structure', 'svc_wallet', 'svc_search', 'svc_pulse', 'svc_feed', 'svc_callers', 'svc_leaderboard', 'svc_basket', 'svc_stats', 'svc_deployer', 'svc_token', 'svc_caller', 'svc_mentions', 'svc_momentum', 'svc_signals', 'svc_wallet_receipt', 'svc_first_call', 'svc_arc_report']) {
      expect(names).toContain(n)
    }
    const token = tools.find((t) => t.name === 'svc_token')!
    expect(token.inputSchema.required).toEqual(['address'])
    await client.close()
  })

  it('svc_stats answers the same data as GET /stats', async () => {
    const client = await connect()
    const result = await client.callTool({ name: 'svc_stats', arguments: {} })
    expect(result.isError).toBeFalsy()
    const http = (await env.api.app.inject({ method: 'GET', url: '/stats' })).json()
    expect(result.structuredContent).toEqual(http)
    await client.close()
  })

  it('/mcp is a key endpoint: 401 without a key, naming the OAuth metadata of the connector', async () => {
    const res = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('missing_key')
    await expect(connect({})).rejects.toThrow()
    const bad = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-key': `svc_live_${'x'.repeat(32)}` }, body: '{}' })
    expect(bad.status).toBe(401)
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"')
  })

  it('svc_token goes through the same access gate: with a key the paid tool runs without payment; bad input is an error result', async () => {
    const client = await connect()
    const address = `0x${'ab'.repeat(20)}`
    const ok = await client.callTool({ name: 'svc_token', arguments: { address } })
    expect(ok.isError).toBeFalsy()
    expect((ok.structuredContent as { data: { found: boolean } }).data.found).toBe(false)
    const bad = await client.callTool({ name: 'svc_token', arguments: { address: '0x12' } })
    expect(bad.isError).toBe(true)
    expect(JSON.stringify(bad.content)).toMatch(/address/)
    await client.close()
    const admin = await connect({ authorization: `Bearer ${TEST_ADMIN_TOKEN}` })
    expect((await admin.callTool({ name: 'svc_token', arguments: { address } })).isError).toBeFalsy()
    await admin.close()
  })

  it('calls of two clients (the same JSON-RPC ids), interleaved on the reused tool servers, each get their own answer', { timeout: 60_000 }, async () => {
    const clients = [await connect(), await connect()]
    const addresses = Array.from({ length: 40 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`)
    const calls = await Promise.all(addresses.map((address, i) => clients[i % 2]!.callTool({ name: 'svc_token', arguments: { address } })))
    expect(calls.map((r) => (r.structuredContent as { data: { token: string } }).data.token)).toEqual(addresses)
    const bad = await Promise.all(addresses.slice(0, 6).map((a, i) => clients[i % 2]!.callTool({ name: 'svc_token', arguments: { address: i % 3 === 0 ? '0x12' : a } })))
    expect(bad.map((r) => Boolean(r.isError))).toEqual([true, false, false, true, false, false])
    for (const c of clients) await c.close()
  })
})
