import { z } from 'zod'
import { acceptableRedirectUri, CONNECTION_TTL_SECONDS, type McpConnector } from '../access/mcp-connector.ts'
import { RedirectUri } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { originOf } from '../routes.ts'

/**
 * The MCP connector (spec: /mcp/account, "asks for the key once and hands the assistant a
 * connection token"), as OAuth 2.1 the way MCP clients discover it: protected-resource and
 * authorization-server metadata, dynamic client registration, an authorization page that asks
 * for the key (sent in the x-svc-key header, never in a URL), and a token endpoint exchanging
 * the code (PKCE S256) for a connection token that /mcp accepts as a Bearer.
 */

function connector(deps: Uses<'connector'>): McpConnector {
  if (!deps.connector) throw new ApiError('dependency_unavailable', 'The MCP connector is not available in this process.')
  return deps.connector
}

export const protectedResourceEndpoint = defineEndpoint()({
  method: 'GET',
  path: '/.well-known/oauth-protected-resource',
  summary: 'OAuth protected-resource metadata of /mcp',
  description: 'RFC 9728 metadata: /mcp is the resource; this service is its authorization server (the /mcp/account connector).',
  tags: ['account'],
  response: z.object({ resource: z.string(), authorization_servers: z.array(z.string()), bearer_methods_supported: z.array(z.string()), resource_name: z.string() }),
  access: { kind: 'free' },
  async handler({ request }) {
    const o = originOf(request)
    return { resource: `${o}/mcp`, authorization_servers: [o], bearer_methods_supported: ['header'], resource_name: 'Chain Intelligence API (MCP)' }
  },
})

export const authorizationServerEndpoint = defineEndpoint()({
  method: 'GET',
  path: '/.well-known/oauth-authorization-server',
  summary: 'OAuth authorization-server metadata',
  description: 'RFC 8414 metadata of the MCP connector: authorization code with PKCE S256, public clients registered dynamically.',
  tags: ['account'],
  response: z.object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    registration_endpoint: z.string(),
    response_types_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
  }),
  access: { kind: 'free' },
  async handler({ request }) {
    const o = originOf(request)
    return {
      issuer: o,
      authorization_endpoint: `${o}/mcp/account`,
      token_endpoint: `${o}/mcp/account/token`,
      registration_endpoint: `${o}/mcp/account/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
    }
  },
})

export const registerClientEndpoint = defineEndpoint<Uses<'connector'>>()({
  method: 'POST',
  path: '/mcp/account/register',
  summary: 'Register an MCP connector client',
  description: 'RFC 7591 dynamic registration of a public client (no secret). Redirect URIs must be https, or http on the loopback host.',
  tags: ['account'],
  body: z.object({
    redirect_uris: z.array(RedirectUri(2000)).min(1).max(5),
    client_name: z.string().max(200).optional(),
  }),
  response: z.object({
    client_id: z.string(),
    client_id_issued_at: z.number().int(),
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    token_endpoint_auth_method: z.literal('none'),
  }),
  // Each registration is a stored row: capped per IP.
  access: { kind: 'free', perMinute: 10 },
  async handler({ body, deps }) {
    const bad = body.redirect_uris.find((u) => !acceptableRedirectUri(u))
    if (bad) throw new ApiError('invalid_parameter', `redirect_uris: ${bad} is not https (or http on the loopback host).`, { parameter: 'redirect_uris', oauth_error: 'invalid_redirect_uri' })
    const c = await connector(deps).registerClient({ redirectUris: body.redirect_uris, clientName: body.client_name ?? 'MCP client' })
    return {
      client_id: c.clientId,
      client_id_issued_at: Math.floor(Date.parse(c.createdAt) / 1000),
      client_name: c.clientName,
      redirect_uris: c.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none' as const,
    }
  },
})

/** What an authorization request carries (in the page's query, then in the key holder's POST). */
const AuthorizationParams = z.object({
  client_id: z.string().min(1).max(100),
  redirect_uri: RedirectUri(2000),
  code_challenge: z.string().regex(/^[A-Za-z0-9_-]{43,128}$/, 'a PKCE S256 challenge (43-128 base64url characters)'),
  code_challenge_method: z.literal('S256', { error: 'S256' }),
  state: z.string().max(500).optional(),
  resource: z.string().max(2000).optional(),
  scope: z.string().max(500).optional(),
})

/**
 * The connect page must not be framed (clickjacking a key holder into connecting), and is not
 * kept by caches or named to the next site as a referrer.
 */
export const CONNECT_PAGE_HEADERS = {
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
}

/**
 * Where the browser goes after connecting, as the key holder should judge it: the redirect's
 * host (a client's name is its own choice, "Claude" included; its redirect host is not), or
 * "this computer" for a loopback redirect (a native app).
 */
export function redirectDestination(redirectUri: string): string {
  const u = new URL(redirectUri)
  return u.protocol === 'http:' ? `${u.host} (an application on this computer)` : u.host
}

/** The page: one password field; the key goes in the x-svc-key header of a POST, never in a URL. */
function connectPage(clientName: string, params: z.infer<typeof AuthorizationParams>): string {
  // JSON inside a script: "<" escaped, so nothing a client registered can close the script.
  const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c')
  const text = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
  const destination = text(redirectDestination(params.redirect_uri))
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Connect ${text(clientName)}</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}input,button{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;margin:.5rem 0}#destination{font-size:1.25rem;border:2px solid #b00;padding:.75rem;word-break:break-all}</style>
</head><body>
<h1>Connect ${text(clientName)}</h1>
<p id="destination">The connection is handed to <strong>${destination}</strong>. Connect only if that is the assistant you meant to connect; the name above is the one it gave itself.</p>
<p>Give your subscription key once. The assistant receives a connection token that works at /mcp only (not for webhooks, watchlists or new connections) and ends ${CONNECTION_TTL_SECONDS / 86400} days from now; revoking the key ends it sooner.</p>
<form id="connect"><label>Subscription key <input id="key" type="password" autocomplete="off" placeholder="svc_live_..." required></label><button>Connect</button></form>
<p id="error" role="alert"></p>
<script>
const params = ${json(params)};
document.getElementById('connect').addEventListener('submit', async (e) => {
  e.preventDefault();
  const res = await fetch('/mcp/account', { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-key': document.getElementById('key').value.trim() }, body: JSON.stringify(params) });
  const body = await res.json();
  if (res.ok) location.href = body.redirect_to; else document.getElementById('error').textContent = body.error ? body.error.message : 'The connection failed.';
});
</script>
</body></html>`
}

export const connectPageEndpoint = defineEndpoint<Uses<'connector'>>()({
  method: 'GET',
  path: '/mcp/account',
  summary: 'MCP connector: connect with a key',
  description:
    'The OAuth authorization page of the MCP connector, for assistants that cannot send headers: asks for the subscription key once (sent in x-svc-key by the page, never in a URL) and hands the assistant a connection token through the authorization code flow (PKCE S256). Shows the host the connection is handed to (the redirect_uri\'s); redirect_uri must be https, or http on the loopback host. Answers HTML that may not be framed (X-Frame-Options: DENY, CSP frame-ancestors \'none\').',
  tags: ['account'],
  query: AuthorizationParams.extend({ response_type: z.literal('code', { error: 'code' }) }),
  response: z.string(),
  produces: 'text/html',
  access: { kind: 'free' },
  async handler({ query, deps }) {
    const { response_type: _code, ...params } = query
    const c = await connector(deps).checkRedirect(params.client_id, params.redirect_uri)
    return { raw: connectPage(c.clientName, params), contentType: 'text/html; charset=utf-8', headers: CONNECT_PAGE_HEADERS }
  },
})

export const authorizeEndpoint = defineEndpoint<Uses<'connector'>>()({
  method: 'POST',
  path: '/mcp/account',
  summary: 'MCP connector: authorize with a key',
  description: 'With the subscription key in x-svc-key (or Authorization: Bearer; a connection token is refused with 403), issues the authorization code (valid 10 minutes, once) and answers where to send the browser: the client\'s redirect_uri with code and state.',
  tags: ['account'],
  body: AuthorizationParams,
  response: z.object({ redirect_to: z.string() }),
  access: { kind: 'key' },
  async handler({ body, deps, grant }) {
    if (!grant.keyHash) throw new ApiError('forbidden', 'A connection stands for a subscription key: present one in x-svc-key.')
    const c = connector(deps)
    await c.checkRedirect(body.client_id, body.redirect_uri)
    const code = await c.issueCode({ clientId: body.client_id, redirectUri: body.redirect_uri, codeChallenge: body.code_challenge, keyHash: grant.keyHash })
    const to = new URL(body.redirect_uri)
    to.searchParams.set('code', code)
    if (body.state !== undefined) to.searchParams.set('state', body.state)
    return { redirect_to: to.href }
  },
})

export const connectionTokenEndpoint = defineEndpoint<Uses<'connector'>>()({
  method: 'POST',
  path: '/mcp/account/token',
  summary: 'MCP connector: exchange the code for a connection token',
  description: `OAuth token endpoint (application/x-www-form-urlencoded or JSON): grant_type authorization_code, code, redirect_uri, client_id, code_verifier. Answers a Bearer connection token (svc_conn_...) that ends ${CONNECTION_TTL_SECONDS / 86400} days after its issue (nothing renews it), accepted at /mcp (and its tools) only, for the key it stands for. Refusals carry the OAuth error code in details.oauth_error.`,
  tags: ['account'],
  body: z.object({
    grant_type: z.literal('authorization_code', { error: 'authorization_code' }),
    code: z.string().min(1).max(200),
    redirect_uri: RedirectUri(2000),
    client_id: z.string().min(1).max(100),
    code_verifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'a PKCE code verifier (43-128 characters)'),
    resource: z.string().max(2000).optional(),
  }),
  response: z.object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int() }),
  access: { kind: 'free', perMinute: 30 },
  async handler({ body, deps }) {
    const { token, expiresIn } = await connector(deps).exchange({ code: body.code, clientId: body.client_id, redirectUri: body.redirect_uri, codeVerifier: body.code_verifier })
    return { access_token: token, token_type: 'Bearer' as const, expires_in: expiresIn }
  },
})

export const mcpAccountEndpoints = [protectedResourceEndpoint, authorizationServerEndpoint, registerClientEndpoint, connectPageEndpoint, authorizeEndpoint, connectionTokenEndpoint]
