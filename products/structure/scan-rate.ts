import { createHash } from 'node:crypto'
import type { Store } from '../../core/store/types.ts'
import type { RequestInfo } from '../../core/endpoint/types.ts'
import { ApiError, unavailableAsApiError } from '../../core/endpoint/errors.ts'
import { bearer, header } from '../../core/endpoint/request-headers.ts'

export interface ScanRateCaps {
  /** Scan requests per client address per minute. */
  perAddress: number
  /** Scan requests per presented key per minute. */
  perKey: number
}

/**
 * Scan requests (POST /structure/{token} and POST /forensics/{token} together) in a fixed
 * one-minute window, per client address and, when a key is presented, per key, whatever address
 * it comes from. The key is counted by a hash of what was presented, verified or not: a made-up
 * key only ever spends its own window, and the address's window bounds those. Over either: 429
 * with the seconds left in the window.
 */
export async function limitScanRequests(store: Store, request: RequestInfo, caps: ScanRateCaps): Promise<void> {
  const minute = Math.floor(Date.now() / 60_000)
  const presented = header(request, 'x-svc-key') ?? bearer(request)
  const windows: Array<{ key: string; cap: number; per: string }> = [{ key: `scanrate:ip:${request.ip}:${minute}`, cap: caps.perAddress, per: 'address' }]
  if (presented) windows.push({ key: `scanrate:key:${createHash('sha256').update(presented).digest('hex').slice(0, 32)}:${minute}`, cap: caps.perKey, per: 'key' })
  for (const w of windows) {
    let used: number
    try {
      used = await store.incr(w.key, 1, 60_000)
    } catch (err) {
      throw unavailableAsApiError(err) ?? err
    }
    if (used > w.cap) {
      const retryAfter = String(Math.max(1, 60 - Math.floor((Date.now() % 60_000) / 1000)))
      throw new ApiError('rate_limited', `At most ${w.cap} scan requests per minute per ${w.per}; retry in ${retryAfter} s.`, { limit: w.cap, per: w.per, window_seconds: 60 }, { 'retry-after': retryAfter })
    }
  }
}
