import type { RequestInfo } from './types.ts'

/** A request header's first value (node gives repeated headers as arrays). */
export function header(request: RequestInfo, name: string): string | undefined {
  const v = request.headers[name.toLowerCase()]
  return Array.isArray(v) ? v[0] : v
}

/** The token of an `Authorization: Bearer` header. */
export function bearer(request: RequestInfo): string | undefined {
  const auth = header(request, 'authorization')
  return auth?.startsWith('Bearer ') ? auth.slice(7).trim() : undefined
}
