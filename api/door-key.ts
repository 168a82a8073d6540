import type { FastifyRequest } from 'fastify'

/** What the SQL door answers a request without a valid analyst key (ClickHouse's own wording). */
export const DOOR_UNAUTHENTICATED = 'default: Authentication failed: give an analyst key as the password (HTTP basic auth) or in X-ClickHouse-Key.'

/**
 * The key given to the SQL door (/clickhouse): X-ClickHouse-Key, the password of HTTP basic auth
 * (any user name: ClickHouse clients send one), or a bearer token.
 */
export function doorKey(req: FastifyRequest): string | undefined {
  const given = req.headers['x-clickhouse-key']
  if (typeof given === 'string' && given) return given
  const auth = req.headers.authorization
  if (auth?.startsWith('Basic ')) {
    const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    return (colon >= 0 ? decoded.slice(colon + 1) : '') || undefined
  }
  if (auth?.startsWith('Bearer ')) return auth.slice(7).trim() || undefined
  return undefined
}
