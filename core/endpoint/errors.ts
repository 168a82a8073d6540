import { isDependencyUnavailable } from '../dependency.ts'
import { PAYMENT_ASSET, PAYMENT_NETWORK } from '../payment-terms.ts'

/**
 * Every API error code, declared once with its HTTP status and a default message. The error
 * body is `{"error":{"code","message","details"}}` (DESIGN §7). OpenAPI documents each code
 * from this table, so a code cannot exist without being documented.
 */
export const ERROR_CODES = {
  invalid_address: { status: 400, message: 'A path or query parameter is not a 0x address of 40 hex characters.' },
  invalid_parameter: { status: 400, message: 'A parameter is missing or does not have the expected form.' },
  key_in_url: { status: 400, message: 'Keys go in the x-svc-key or Authorization header, never in the URL.' },
  missing_key: { status: 401, message: 'This endpoint needs a subscription key in x-svc-key or Authorization: Bearer.' },
  invalid_key: { status: 401, message: 'The subscription key is not valid.' },
  payment_required: { status: 402, message: `Payment required: settle ${PAYMENT_ASSET} on ${PAYMENT_NETWORK} over x402 and retry.` },
  forbidden: { status: 403, message: 'The credentials given do not allow this call.' },
  not_found: { status: 404, message: 'No such route.' },
  method_not_allowed: { status: 405, message: 'The route exists but not with this method.' },
  not_acceptable: { status: 406, message: 'The Accept header names no content type this endpoint answers with.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  payload_too_large: { status: 413, message: 'The request body is larger than allowed.' },
  unsupported_media_type: { status: 415, message: 'The request body has an unsupported content type.' },
  rate_limited: { status: 429, message: 'Too many requests; retry after the time given in Retry-After.' },
  internal_error: { status: 500, message: 'An unexpected error occurred.' },
  not_implemented: { status: 501, message: 'This endpoint is declared in the contract but not served yet.' },
  dependency_unavailable: { status: 503, message: 'A dependency (database, bus or store) is unavailable; retry shortly.' },
} as const satisfies Record<string, { status: number; message: string }>

export type ErrorCode = keyof typeof ERROR_CODES

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> }
}

/** An error the API answers with its own status and body. Anything else becomes internal_error. */
export class ApiError extends Error {
  override name = 'ApiError'
  readonly status: number
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers, e.g. Retry-After or PAYMENT-REQUIRED. */
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? ERROR_CODES[code].message)
    this.status = ERROR_CODES[code].status
  }

  body(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } }
  }
}

/**
 * A dependency that did not answer (the store, ClickHouse) as the 503 callers get, naming it;
 * null for any other error. The cause's text stays in the logs: it names hosts and ports.
 */
export function unavailableAsApiError(err: unknown): ApiError | null {
  if (!isDependencyUnavailable(err)) return null
  const what = err.dependency === 'store' ? 'The store (quotas, rate caps, payment replay guard)' : 'ClickHouse'
  return new ApiError('dependency_unavailable', `${what} is unavailable; retry shortly.`, { dependency: err.dependency }, { 'retry-after': '5' })
}
