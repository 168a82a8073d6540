import { isIPv6 } from 'node:net'
import { isDependencyUnavailable } from '../../core/dependency.ts'
import { createMemoryStore } from '../../core/store/memory-store.ts'
import type { Store } from '../../core/store/types.ts'
import { embeddedIPv4, ipv6Groups } from '../../core/embedded-ipv4.ts'
import { ApiError } from '../../core/endpoint/errors.ts'

/** Credentials (keys, connection tokens, the operator token) that may fail per client address and minute. */
export const FAILED_LOOKUPS_PER_MINUTE = 20

/**
 * Failed credential lookups per client address (an IPv6 client by its /64), in a fixed one-minute window counted in the
 * store (shared by API processes on Redis; counted in this process while the store is down).
 * Past the cap a presented credential is refused with 429 before it is looked up, so guessing
 * keys or tokens costs neither the engine nor the store more than the cap allows.
 */
export interface FailedLookups {
  /** 429 with Retry-After when `ip` has used up its failures this minute. */
  refuseIfExhausted(ip: string): Promise<void>
  /** Count one failed lookup from `ip`. */
  failed(ip: string): Promise<void>
}

/**
 * Whom failures are counted against: an IPv4 address (also when written IPv4-mapped), or the /64
 * of an IPv6 address, since one subscriber commonly holds a whole /64 and could otherwise take
 * a fresh address for every guess.
 */
export function clientOf(ip: string): string {
  if (!isIPv6(ip)) return ip
  const mapped = embeddedIPv4(ip).find((e) => e.form === 'ipv4-mapped')
  if (mapped) return mapped.ipv4
  const g = ipv6Groups(ip)
  return g ? `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64` : ip
}

export function createFailedLookups(store: Store, perMinute = FAILED_LOOKUPS_PER_MINUTE): FailedLookups {
  const local = createMemoryStore()
  const key = (ip: string) => `authfail:${clientOf(ip)}:${Math.floor(Date.now() / 60_000)}`
  const withFallback = async <T>(op: (s: Store) => Promise<T>): Promise<T> => {
    try {
      return await op(store)
    } catch (err) {
      if (!isDependencyUnavailable(err)) throw err
      return op(local)
    }
  }
  return {
    async refuseIfExhausted(ip) {
      const used = Number((await withFallback((s) => s.get(key(ip)))) ?? 0)
      if (used < perMinute) return
      const retryAfter = String(Math.max(1, 60 - Math.floor((Date.now() % 60_000) / 1000)))
      throw new ApiError(
        'rate_limited',
        `Too many invalid keys or tokens from this address: at most ${perMinute} a minute; retry in ${retryAfter} s.`,
        { limit: perMinute, window_seconds: 60 },
        { 'retry-after': retryAfter },
      )
    },
    async failed(ip) {
      await withFallback((s) => s.incr(key(ip), 1, 60_000))
    },
  }
}
