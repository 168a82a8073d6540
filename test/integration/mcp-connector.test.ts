import { createHash, randomBytes } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runReadOnlySql } from '../../sql/read-only.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'

/**
 * The MCP connector (/mcp/account) with the official MCP SDK client as the assistant: it meets
 * 401 at /mcp, discovers the OAuth metadata, registers, sends the user to the connect page; the
 * test plays the user (gives the key once); the client exchanges the code and then uses /mcp
 * with the connection token alone.
 */
let env: Embedded
let base: string
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

beforeAll(async () => {
  env = await startEmbedded()
  await env.ingestThrough(50)
  base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(async () => env?.close())

/** The assistant's side of OAuth, kept in memory; the redirect is captured instead of opening a browser. */
class AssistantAuth implements OAuthClientProvider {
  info?: OAuthClientInformationMixed
  saved?: OAuthTokens
  verifier = ''
  sentTo?: URL
  get redirectUrl() {
    return 'http://127.0.0.1:53682/callback'
  }
  get clientMetadata(): OAuthClientMetadata {
    return { redirect_uris: [this.redirectUrl], client_name: 'Test <Assistant>', grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' }
  }
  clientInformation() {
    return this.info
  }
  saveClientInformation(i: OAuthClientInformationMixed) {
    this.info = i
  }
  tokens() {
    return this.saved
  }
  saveTokens(t: OAuthTokens) {
    this.saved = t
  }
  redirectToAuthorization(url: URL) {
    this.sentTo = url
  }
  saveCodeVerifier(v: string) {
    this.verifier = v
  }
  codeVerifier() {
    return this.verifier
  }
}

/** The user on the connect page: gives the key; answers the code the page would redirect with. */
async function userConnects(page: URL, key: string): Promise<{ code: string; state: string | null }> {
  const html = await fetch(page)
  expect(html.status).toBe(200)
  expect(html.headers.get('content-type')).toContain('text/html')
  const text = await html.text()
  expect(text).toContain('Test &#60;Assistant&#62;')
  expect(text).not.toContain('<Assistant>')
  const params = Object.fromEntries([...page.searchParams].filter(([k]) => k !== 'response_type'))
  const res = await fetch(`${base}/mcp/account`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-key': key }, body: JSON.stringify(params) })
  expect(res.status).toBe(200)
  const to = new URL(((await res.json()) as { redirect_to: string }).redirect_to)
  expect(`${to.origin}${to.pathname}`).toBe('http://127.0.0.1:53682/callback')
  return { code: to.searchParams.get('code')!, state: to.searchParams.get('state') }
}

const issueKey = async (plan = 'founders') => (await env.api.deps.keys.create(plan as 'founders')).key

describe('the MCP connector at /mcp/account', () => {
  it('an assistant that cannot send headers connects with the official MCP client: OAuth, the key given once, then a connection token', { timeout: 60_000 }, async () => {
    const key = await issueKey()
    const auth = new AssistantAuth()
    const first = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: auth })
    await expect(new Client({ name: 'assistant', version: '1.0.0' }).connect(first)).rejects.toThrow(/Unauthorized/i)
    expect(auth.info?.client_id).toMatch(/^mcpc_/)
    expect(auth.sentTo!.origin + auth.sentTo!.pathname).toBe(`${base}/mcp/account`)
    expect(auth.sentTo!.searchParams.get('code_challenge_method')).toBe('S256')

    const { code } = await userConnects(auth.sentTo!, key)
    await first.finishAuth(code)
    expect(auth.saved?.access_token).toMatch(/^svc_conn_/)
    expect(auth.saved?.access_token).not.toContain(key)

    const client = new Client({ name: 'assistant', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: auth }))
    expect((await client.listTools()).tools).toHaveLength(23)
    // a paid tool runs under the key's plan, without payment
    const token = await client.callTool({ name: 'svc_token', arguments: { address: `0x${'ab'.repeat(20)}` } })
    expect(token.isError).toBeFalsy()
    await client.close()

    // The connection token is the key's stand-in at /mcp: revoking the key ends it.
    const call = (bearer: string) =>
      fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${bearer}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })
    expect((await call(auth.saved!.access_token)).status).toBe(200)
    const prefix = key.slice(0, 'svc_live_'.length + 4)
    expect((await fetch(`${base}/admin/keys/${prefix}`, { method: 'DELETE', headers: admin })).status).toBe(200)
    const after = await call(auth.saved!.access_token)
    expect(after.status).toBe(401)
    expect(after.headers.get('www-authenticate')).toContain('resource_metadata=')
  })

  it('codes are bound to PKCE, to their client and redirect, and spent once', async () => {
    const key = await issueKey()
    const redirect = 'https://assistant.example/cb'
    const reg = await fetch(`${base}/mcp/account/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [redirect], client_name: 'manual' }) })
    const { client_id } = (await reg.json()) as { client_id: string }
    const verifier = randomBytes(32).toString('base64url')
    const challenge = createHash('sha256').update(verifier).digest('base64url')
    const params = { client_id, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256', state: 's1' }
    const authorize = (headers: Record<string, string>, body = params) => fetch(`${base}/mcp/account`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

    expect((await authorize({})).status).toBe(401)
    expect((await authorize(admin)).status).toBe(403)
    expect((await authorize({ 'x-svc-key': key }, { ...params, redirect_uri: 'https://elsewhere.example/cb' })).status).toBe(400)
    const ok = (await (await authorize({ 'x-svc-key': key })).json()) as { redirect_to: string }
    const to = new URL(ok.redirect_to)
    expect(to.searchParams.get('state')).toBe('s1')
    const code = to.searchParams.get('code')!

    const exchange = (over: Record<string, string>) =>
      fetch(`${base}/mcp/account/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect, client_id, code_verifier: verifier, ...over }).toString(),
      })
    const wrong = await exchange({ code_verifier: randomBytes(32).toString('base64url') })
    expect(wrong.status).toBe(400)
    expect(((await wrong.json()) as { error: { details: { oauth_error: string } } }).error.details.oauth_error).toBe('invalid_grant')
    // a refused exchange spends the code too: an attacker guessing verifiers gets one try
    expect((await exchange({})).status).toBe(400)

    const again = (await (await authorize({ 'x-svc-key': key })).json()) as { redirect_to: string }
    const code2 = new URL(again.redirect_to).searchParams.get('code')!
    const good = await exchange({ code: code2 })
    expect(good.status).toBe(200)
    expect(await good.json()).toMatchObject({ token_type: 'Bearer', expires_in: 30 * 86400 })
    expect((await exchange({ code: code2 })).status).toBe(400)
  })

  it('registration accepts https or loopback redirects only; the page refuses unknown clients', async () => {
    const register = (uris: string[]) => fetch(`${base}/mcp/account/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: uris }) })
    expect((await register(['http://evil.example/cb'])).status).toBe(400)
    expect((await register(['javascript:alert(1)'])).status).toBe(400)
    expect((await register(['http://localhost:9999/cb'])).status).toBe(200)
    const page = await fetch(`${base}/mcp/account?response_type=code&client_id=mcpc_unknown&redirect_uri=https%3A%2F%2Fx.example%2Fcb&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`)
    expect(page.status).toBe(400)
    expect(((await page.json()) as { error: { details: { oauth_error: string } } }).error.details.oauth_error).toBe('invalid_client')
  })

  it('registration is capped at 10 a minute per IP', { timeout: 30_000 }, async () => {
    // the cap counts per clock minute: start early in one
    if (new Date().getSeconds() > 50) await new Promise((r) => setTimeout(r, 11_000))
    const statuses: number[] = []
    for (let i = 0; i < 11; i++) {
      const res = await env.api.app.inject({ method: 'POST', url: '/mcp/account/register', remoteAddress: '198.51.100.77', payload: { redirect_uris: ['https://a.example/cb'] } })
      statuses.push(res.statusCode)
    }
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true)
    expect(statuses[10]).toBe(429)
  })

  it('publishes the OAuth metadata MCP clients discover', async () => {
    const prm = (await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json()) as { resource: string; authorization_servers: string[] }
    expect(prm).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base] })
    const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>
    expect(as).toMatchObject({ issuer: base, authorization_endpoint: `${base}/mcp/account`, token_endpoint: `${base}/mcp/account/token`, code_challenge_methods_supported: ['S256'] })
  })

  it('ad-hoc SQL cannot read the connection tokens', async () => {
    await expect(runReadOnlySql(env.rt.ch, 'SELECT * FROM mcp_connections')).rejects.toThrow(/secrets/)
  })
})
