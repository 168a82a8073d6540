import { createHash, randomBytes } from 'node:crypto'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { countCacheLookup } from '../../core/metrics.ts'
import type { Store } from '../../core/store/types.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { createBoundedCache } from '../../core/serving/bounded-cache.ts'
import { hashKey } from './keys.ts'

/**
 * The MCP connector behind /mcp/account: OAuth 2.1 (authorization code with PKCE S256, dynamic
 * client registration) for assistants that cannot send headers. The user gives their
 * subscription key once; the assistant gets a connection token (`svc_conn_...`) that stands for
 * that key at /mcp. Clients and connections live in ClickHouse (hashed tokens), codes in the
 * store for 10 minutes and spend once (a code lost with the store only means signing in again).
 *
 * A connection token grants less than its key: it is accepted at /mcp only (the gate refuses it
 * elsewhere, so it cannot mint codes, nor read or change webhooks and watchlists), and it ends
 * at the absolute time set when it was issued; nothing renews it.
 */

export const CONNECTION_PREFIX = 'svc_conn_'
/** What `exchange` issues: the prefix and 30 random bytes in base64url. */
const CONNECTION_SHAPE = /^svc_conn_[A-Za-z0-9_-]{40}$/
/** Whether `s` has the shape of a connection token (only those are looked up). */
export const looksLikeConnectionToken = (s: string) => CONNECTION_SHAPE.test(s)
/** How long a connection token lasts, from its issue. */
export const CONNECTION_TTL_SECONDS = 30 * 24 * 3600
const CODE_TTL_MS = 10 * 60_000
const CACHE_MS = 5_000
/** Token lookups remembered (unknown tokens included); bounded, since the tokens tried are the caller's choice. */
export const CONNECTION_CACHE_ENTRIES = 10_000

/** What a live connection token stands for. */
export interface Connection {
  keyHash: string
  /** When it ends (ms since the epoch), fixed at issue. */
  expiresAt: number
}

export interface OAuthClient {
  clientId: string
  clientName: string
  redirectUris: string[]
  createdAt: string
}

export interface AuthorizationRequest {
  clientId: string
  redirectUri: string
  codeChallenge: string
  /** The key the user gave (its hash). */
  keyHash: string
}

const base64url = (b: Buffer) => b.toString('base64url')

/** A redirect URI an assistant may register: https, or http on the loopback host (native apps). */
export function acceptableRedirectUri(uri: string): boolean {
  let u: URL
  try {
    u = new URL(uri)
  } catch {
    return false
  }
  if (u.hash) return false
  if (u.protocol === 'https:') return true
  return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)
}

/** OAuth's error, in our error body (details.oauth_error carries the RFC 6749 code). */
const oauthError = (error: string, description: string) => new ApiError('invalid_parameter', description, { oauth_error: error })

export function createMcpConnector(ch: ClickHouseClient, store: Store, opts: { cacheEntries?: number } = {}) {
  const cache = createBoundedCache<Connection | null>(opts.cacheEntries ?? CONNECTION_CACHE_ENTRIES, CACHE_MS)
  const insert = (table: string, values: Record<string, unknown>[]) =>
    ch.insert({ table, values, format: 'JSONEachRow', clickhouse_settings: { insert_deduplicate: 0 } })

  async function client(clientId: string): Promise<OAuthClient | null> {
    const [r] = await queryRows<{ client_id: string; client_name: string; redirect_uris: string[]; created_at: string }>(
      ch,
      "SELECT client_id, client_name, redirect_uris, toString(created_at) AS created_at FROM mcp_clients FINAL WHERE client_id = {c:String}",
      { c: clientId },
    )
    return r ? { clientId: r.client_id, clientName: r.client_name, redirectUris: r.redirect_uris, createdAt: r.created_at } : null
  }

  /** What a live connection token stands for, or null (unknown, malformed or past its expiry). */
  async function connection(token: string): Promise<Connection | null> {
    if (!looksLikeConnectionToken(token)) return null
    const h = hashKey(token)
    let found = cache.get(h)
    countCacheLookup('connection_tokens', found !== undefined)
    if (found === undefined) {
      const [r] = await queryRows<{ key_hash: string; expires_ms: string }>(
        ch,
        'SELECT key_hash, toString(toUnixTimestamp64Milli(expires_at)) AS expires_ms FROM mcp_connections FINAL WHERE token_hash = {h:String}',
        { h },
      )
      found = r ? { keyHash: r.key_hash, expiresAt: Number(r.expires_ms) } : null
      cache.set(h, found)
    }
    // Checked on every use, cached or not: a token ends at its expiry, not up to CACHE_MS later.
    return found && found.expiresAt > Date.now() ? found : null
  }

  return {
    client,

    /** RFC 7591 registration of a public client (no secret: PKCE protects the code). */
    async registerClient(meta: { redirectUris: string[]; clientName: string }): Promise<OAuthClient> {
      const c: OAuthClient = { clientId: `mcpc_${base64url(randomBytes(18))}`, clientName: meta.clientName, redirectUris: meta.redirectUris, createdAt: new Date().toISOString() }
      await insert('mcp_clients', [{ client_id: c.clientId, client_name: c.clientName, redirect_uris: c.redirectUris, created_at: Date.parse(c.createdAt) }])
      return c
    },

    /** The registered client and redirect URI of an authorization request, or a 400 naming what is wrong. */
    async checkRedirect(clientId: string, redirectUri: string): Promise<OAuthClient> {
      const c = await client(clientId)
      if (!c) throw oauthError('invalid_client', 'client_id is not a registered client (register at /mcp/account/register).')
      if (!c.redirectUris.includes(redirectUri)) throw oauthError('invalid_request', 'redirect_uri is not one the client registered.')
      // Registration already refuses these; checked again so that no stored client can lead a key holder to a plain-http host.
      if (!acceptableRedirectUri(redirectUri)) throw oauthError('invalid_request', 'redirect_uri must be https (or http on the loopback host).')
      return c
    },

    /** An authorization code for the key the user gave; valid 10 minutes, once. */
    async issueCode(r: AuthorizationRequest): Promise<string> {
      const code = base64url(randomBytes(32))
      await store.set(`mcp:code:${hashKey(code)}`, JSON.stringify(r), CODE_TTL_MS)
      return code
    },

    /** Exchange a code (with its PKCE verifier) for a connection token; a code is spent once. */
    async exchange(x: { code: string; clientId: string; redirectUri: string; codeVerifier: string }): Promise<{ token: string; expiresIn: number }> {
      const h = hashKey(x.code)
      const raw = await store.get(`mcp:code:${h}`)
      if (!raw || !(await store.setIfAbsent(`mcp:code-spent:${h}`, '1', CODE_TTL_MS))) throw oauthError('invalid_grant', 'The code is unknown, expired or already used.')
      await store.del(`mcp:code:${h}`)
      const r = JSON.parse(raw) as AuthorizationRequest
      if (r.clientId !== x.clientId || r.redirectUri !== x.redirectUri) throw oauthError('invalid_grant', 'The code was issued to another client or redirect_uri.')
      if (base64url(createHash('sha256').update(x.codeVerifier).digest()) !== r.codeChallenge) throw oauthError('invalid_grant', 'code_verifier does not match the code_challenge.')
      const token = `${CONNECTION_PREFIX}${base64url(randomBytes(30))}`
      const now = Date.now()
      await insert('mcp_connections', [{ token_hash: hashKey(token), key_hash: r.keyHash, client_id: r.clientId, created_at: now, expires_at: now + CONNECTION_TTL_SECONDS * 1000 }])
      return { token, expiresIn: CONNECTION_TTL_SECONDS }
    },

    connection,

    /** The key hash a live connection token stands for, or null. */
    async keyHashOf(token: string): Promise<string | null> {
      return (await connection(token))?.keyHash ?? null
    },

    /** Token lookups held in memory now (at most `cacheEntries`). */
    cacheSize: () => cache.size(),
  }
}

export type McpConnector = ReturnType<typeof createMcpConnector>
