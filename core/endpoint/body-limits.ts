import type { AnyEndpoint } from './types.ts'

/** The body limit of a JSON route unless its catalog entry declares another: a few KiB is plenty for parameters. */
export const JSON_BODY_LIMIT_BYTES = 16 * 1024

/** Where a large body is the point (the /identify screenshot as base64, the SQL doors, MCP tool calls carrying one). */
export const LARGE_BODY_LIMIT_BYTES = 8 * 1024 * 1024

/** The most bytes of body an endpoint's route reads before answering 413. */
export function bodyLimitOf(e: Pick<AnyEndpoint, 'bodyLimit'>): number {
  return e.bodyLimit ?? JSON_BODY_LIMIT_BYTES
}

/** A route whose body may be large enough that who may call it is checked before it is read. */
export const takesLargeBody = (e: Pick<AnyEndpoint, 'bodyLimit'>) => bodyLimitOf(e) > JSON_BODY_LIMIT_BYTES
