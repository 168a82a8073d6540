import { createHash, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccessGate } from '../../api/access/gate.ts'
import { hashKey } from '../../api/access/keys.ts'
import type { AnyEndpoint } from '../../core/endpoint/types.ts'
import { createMemoryStore } from '../../core/store/memory-store.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'

/**
 * A connection token (svc_conn_) grants what docs/security.md says and no more: the key's tools at
 * /mcp, until an expiry fixed at issue. Elsewhere it is refused before any lookup, so a phished
 * connection cannot read or replace the key's webhook, touch its watchlist, or mint further
 * connections. The connect page names where the connection goes and cannot be framed.
 */
let env: Embedded
const TOKEN = `0x${'ab'.repeat(20)}`

beforeAll(async () => {
  env = await startEmbedded({}, { alerts: { allowLoopback: true, producerIntervalMs: 3_600_000 } })
})
afterAll(async () => env?.close())

type Headers = Record<string, string>
async function call(method: 'GET' | 'POST' | 'DELETE', url: string, headers: Headers = {}, payload?: object, remoteAddress = '198.51.100.10') {
  const res = await env.api.app.inject({ method, url, remoteAddress, headers: payload ? { ...headers, 'content-type': 'application/json' } : headers, payload: payload ? JSON.stringify(payload) : undefined })
  return { status: res.statusCode, headers: res.headers, body: res.body, json: () => res.json() }
}

/** A JSON-RPC call at /mcp. */
const mcp = (headers: Headers, message: object = { jsonrpc: '2.0', id: 1, method: 'tools/list' }) =>
  call('POST', '/mcp', { accept: 'application/json, text/event-stream', ...headers }, message)

async function registerClient(redirect: string, name = 'Claude') {
  const res = await call('POST', '/mcp/account/register', {}, { redirect_uris: [redirect], client_name: name }, `198.51.100.${Math.floor(Math.random() * 200) + 20}`)
  expect(res.status, redirect).toBe(200)
  return (res.json() as { client_id: string }).client_id
}

/** The OAuth flow as an assistant and its user run it: a connection token for `key`. */
async function connect(key: string): Promise<string> {
  const redirect = 'https://assistant.example/cb'
  const client_id = await registerClient(redirect)
  const verifier = randomBytes(32).toString('base64url')
  const params = { client_id, redirect_uri: redirect, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' }
  const authorized = await call('POST', '/mcp/account', { 'x-svc-key': key }, params)
  expect(authorized.status).toBe(200)
  const code = new URL((authorized.json() as { redirect_to: string }).redirect_to).searchParams.get('code')!
  const exchanged = await call('POST', '/mcp/account/token', {}, { grant_type: 'authorization_code', code, redirect_uri: redirect, client_id, code_verifier: verifier })
  expect(exchanged.status).toBe(200)
  return (exchanged.json() as { access_token: string }).access_token
}

const expiryOf = async (token: string) =>
  (await queryRows<{ created: string; expires: string }>(env.rt.ch, 'SELECT toString(toUnixTimestamp64Milli(created_at)) AS created, toString(toUnixTimestamp64Milli(expires_at)) AS expires FROM mcp_connections FINAL WHERE token_hash = {h:String}', { h: hashKey(token) }))[0]!

describe('a connection token is accepted at /mcp only', () => {
  let key: string
  let conn: string
  let hookUrl: string

  beforeAll(async () => {
    key = (await env.api.deps.keys.create('signal_feed')).key
    conn = await connect(key)
    hookUrl = 'https://127.0.0.1:9/key-owner'
    expect((await call('POST', '/alerts/webhook', { 'x-svc-key': key }, { url: hookUrl })).status).toBe(200)
    expect((await call('POST', `/watchlist/${TOKEN}`, { 'x-svc-key': key })).status).toBe(200)
  })

  it('works at /mcp: lists the tools and runs one under the key\'s plan', async () => {
    const listed = await mcp({ authorization: `Bearer ${conn}` })
    expect(listed.status).toBe(200)
    expect((listed.json() as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(10)
    const ran = await mcp({ authorization: `Bearer ${conn}` }, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'svc_stats', arguments: {} } })
    expect(ran.status).toBe(200)
    const result = (ran.json() as { result: { isError?: boolean; structuredContent?: { error?: { code: string } } } }).result
    expect(result.structuredContent?.error?.code).toBeUndefined()
    expect(result.isError).toBeFalsy()
  })

  it('is refused with 403 on every other route that accepts the key, in either header', async () => {
    const routes: Array<['GET' | 'POST' | 'DELETE', string, object?]> = [
      ['GET', `/token/${TOKEN}`],
      ['GET', '/watchlist'],
      ['POST', `/watchlist/${TOKEN}`],
      ['DELETE', `/watchlist/${TOKEN}`],
      ['GET', `/structure/${TOKEN}/history`],
      ['GET', '/alerts/webhook'],
      ['POST', '/alerts/webhook', { url: 'https://127.0.0.1:9/attacker' }],
      ['DELETE', '/alerts/webhook'],
      ['POST', '/alerts/test'],
    ]
    for (const [method, url, body] of routes) {
      for (const headers of [{ authorization: `Bearer ${conn}` }, { 'x-svc-key': conn }] as Headers[]) {
        const res = await call(method, url, headers, body)
        expect(res.status, `${method} ${url}`).toBe(403)
        expect(res.json().error, `${method} ${url}`).toMatchObject({ code: 'forbidden', details: { credential: 'connection_token', accepted_at: '/mcp' } })
        expect(res.body).not.toContain('whsec_')
      }
    }
    // Nothing changed for the key: its webhook and watchlist are as it left them.
    const hook = (await call('GET', '/alerts/webhook', { 'x-svc-key': key })).json().data
    expect(hook).toMatchObject({ configured: true, url: hookUrl })
    const watched = (await call('GET', '/watchlist', { 'x-svc-key': key })).json() as { data: Array<{ token: string }> }
    expect(JSON.stringify(watched)).toContain(TOKEN)
  })

  it('cannot mint codes or tokens: POST /mcp/account refuses it, and there is no refresh grant', async () => {
    const redirect = 'https://assistant.example/cb'
    const client_id = await registerClient(redirect)
    const params = { client_id, redirect_uri: redirect, code_challenge: 'c'.repeat(43), code_challenge_method: 'S256' }
    for (const headers of [{ authorization: `Bearer ${conn}` }, { 'x-svc-key': conn }] as Headers[]) {
      const res = await call('POST', '/mcp/account', headers, params)
      expect(res.status).toBe(403)
      expect(res.body).not.toContain('code=')
    }
    const refresh = await call('POST', '/mcp/account/token', {}, { grant_type: 'refresh_token', refresh_token: conn, client_id })
    expect(refresh.status).toBe(400)
    expect(refresh.body).not.toContain('svc_conn_')
  })

  it('even through /mcp, a tool of the webhook or watchlist features would be refused to it; a tool of a plain endpoint is admitted', async () => {
    const { connector, keys, catalog } = env.api.deps
    const gate = createAccessGate({ adminToken: undefined, store: createMemoryStore(), keys, connector })
    const tool = catalog.find((e) => e.tool?.name === 'svc_token') as unknown as AnyEndpoint
    const webhook = catalog.find((e) => e.method === 'GET' && e.path === '/alerts/webhook') as unknown as AnyEndpoint
    const viaMcp = { ip: '198.51.100.11', headers: { authorization: `Bearer ${conn}` }, channel: 'mcp' as const }
    expect(await gate.admit(tool, {}, viaMcp)).toMatchObject({ via: 'key', keyHash: hashKey(key) })
    await expect(gate.admit({ ...webhook, tool: { name: 'svc_webhook' } }, {}, viaMcp)).rejects.toMatchObject({ code: 'forbidden' })
    // The same tool endpoint outside the MCP transport: refused.
    await expect(gate.admit(tool, {}, { ...viaMcp, channel: undefined })).rejects.toMatchObject({ code: 'forbidden' })
  })

  it('ends at the absolute time set at issue: use does not extend it, and past it /mcp answers 401', async () => {
    const issued = await expiryOf(conn)
    expect(Number(issued.expires) - Number(issued.created)).toBe(30 * 86_400_000)
    for (let i = 0; i < 3; i++) expect((await mcp({ authorization: `Bearer ${conn}` })).status).toBe(200)
    expect(await expiryOf(conn)).toEqual(issued)

    // A token issued to end 1.5 s from now: accepted (and cached), then refused once that time passes.
    const short = `svc_conn_${randomBytes(30).toString('base64url')}`
    const now = Date.now()
    await env.rt.ch.insert({
      table: 'mcp_connections',
      values: [{ token_hash: hashKey(short), key_hash: hashKey(key), client_id: 'mcpc_test', created_at: now, expires_at: now + 1_500 }],
      format: 'JSONEachRow',
    })
    expect((await mcp({ authorization: `Bearer ${short}` })).status).toBe(200)
    await new Promise((r) => setTimeout(r, Math.max(0, now + 1_600 - Date.now())))
    const expired = await mcp({ authorization: `Bearer ${short}` })
    expect(expired.status).toBe(401)
    expect(expired.json().error.code).toBe('invalid_key')
    expect(expired.headers['www-authenticate']).toContain('error="invalid_token"')
  })
})

describe('the connect page', () => {
  const challenge = 'c'.repeat(43)
  const pageUrl = (client_id: string, redirect: string) =>
    `/mcp/account?response_type=code&client_id=${client_id}&redirect_uri=${encodeURIComponent(redirect)}&code_challenge=${challenge}&code_challenge_method=S256`

  it('names the host the connection is handed to, whatever name the client gave itself, and may not be framed', async () => {
    const client_id = await registerClient('https://evil.example/cb', 'Claude')
    const page = await call('GET', pageUrl(client_id, 'https://evil.example/cb'))
    expect(page.status).toBe(200)
    expect(page.headers['x-frame-options']).toBe('DENY')
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(page.headers['cache-control']).toBe('no-store')
    expect(page.body).toMatch(/<p id="destination">[^<]*<strong>evil\.example<\/strong>/)
  })

  it('admits https and loopback http redirects only, at registration and again on the page and the authorization', async () => {
    for (const ok of ['http://127.0.0.1:53682/cb', 'http://localhost:9/cb', 'http://[::1]:9/cb', 'https://assistant.example/cb']) await registerClient(ok)
    for (const bad of ['http://evil.example/cb', 'http://127.0.0.1.evil.example/cb', 'http://[::2]/cb', 'ftp://evil.example/cb']) {
      const res = await call('POST', '/mcp/account/register', {}, { redirect_uris: [bad] }, '198.51.100.250')
      expect(res.status, bad).toBe(400)
    }
    const loopback = await registerClient('http://127.0.0.1:53682/cb', 'native app')
    const page = await call('GET', pageUrl(loopback, 'http://127.0.0.1:53682/cb'))
    expect(page.status).toBe(200)
    expect(page.body).toContain('127.0.0.1:53682 (an application on this computer)')

    // A client stored with a plain-http redirect (as no registration admits): refused all the same.
    const client_id = `mcpc_${randomBytes(18).toString('base64url')}`
    await env.rt.ch.insert({ table: 'mcp_clients', values: [{ client_id, client_name: 'old', redirect_uris: ['http://evil.example/cb'], created_at: Date.now() }], format: 'JSONEachRow' })
    const refused = await call('GET', pageUrl(client_id, 'http://evil.example/cb'))
    expect(refused.status).toBe(400)
    expect(refused.json().error.code).toBe('invalid_parameter')
    const key = (await env.api.deps.keys.create('founders')).key
    const authorize = await call('POST', '/mcp/account', { 'x-svc-key': key }, { client_id, redirect_uri: 'http://evil.example/cb', code_challenge: challenge, code_challenge_method: 'S256' })
    expect(authorize.status).toBe(400)
  })
})
