/**
 * Feed cursors are ISO 8601 timestamps with microseconds (the time an item became visible in
 * our feed). JavaScript dates stop at milliseconds, so these helpers keep the microseconds.
 */
const ISO = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/

/** Microseconds since epoch, or null when `s` is not an ISO 8601 date-time. */
export function isoToMicros(s: string): number | null {
  const m = ISO.exec(s.trim())
  if (!m) return null
  const ms = Date.parse(`${m[1]}T${m[2]}${m[4] ?? 'Z'}`)
  if (Number.isNaN(ms)) return null
  return ms * 1000 + Number((m[3] ?? '').padEnd(6, '0').slice(0, 6))
}

export function microsToIso(us: number): string {
  const ms = Math.floor(us / 1000)
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, `.${String(us % 1_000_000).padStart(6, '0')}Z`)
}
