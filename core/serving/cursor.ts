/**
 * Feed cursors are ISO 8601 timestamps with microseconds (the time an item became visible in
 * our feed). JavaScript dates stop at milliseconds, so these helpers keep the microseconds.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/

/** Cursors are clamped to what a UInt32 of seconds holds (1970 to 2106): any RFC 3339 time is a valid cursor. */
const MAX_MICROS = 4_294_967_295 * 1_000_000

/**
 * Microseconds since epoch, or null when `s` is not an RFC 3339 date-time (what OpenAPI's
 * `format: date-time` means: a date, T, a time and a zone; a leap second 60 counts as the next second).
 */
export function isoToMicros(s: string): number | null {
  const m = ISO.exec(s)
  if (!m) return null
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const daysIn = new Date(Date.UTC(2000, month, 0)).getUTCDate() // month days of a leap year
  const leapYear = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  if (month < 1 || month > 12 || day < 1 || day > daysIn || (month === 2 && day === 29 && !leapYear)) return null
  if (hour > 23 || minute > 59 || second > 60) return null
  const zone = m[8]!.toUpperCase()
  if (zone !== 'Z' && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59)) return null
  const offsetMin = zone === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)))
  const utc = new Date(0)
  utc.setUTCFullYear(year, month - 1, day)
  utc.setUTCHours(hour, minute - offsetMin, second, 0)
  const us = utc.getTime() * 1000 + Number((m[7] ?? '').padEnd(6, '0').slice(0, 6))
  return Math.min(MAX_MICROS, Math.max(0, us))
}

export function microsToIso(us: number): string {
  const ms = Math.floor(us / 1000)
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, `.${String(us % 1_000_000).padStart(6, '0')}Z`)
}
