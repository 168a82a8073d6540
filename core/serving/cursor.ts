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
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  const hour = Number(m[4])
  const minute = Number(m[5])
  const second = Number(m[6])
  const leapYear = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]! || (month === 2 && day === 29 && !leapYear)) return null
  if (hour > 23 || minute > 59 || second > 60) return null
  const zone = m[8]!
  let offsetMin = 0
  if (zone !== 'Z' && zone !== 'z') {
    const zoneHours = Number(zone.slice(1, 3))
    const zoneMinutes = Number(zone.slice(4, 6))
    if (zoneHours > 23 || zoneMinutes > 59) return null
    offsetMin = (zone[0] === '-' ? -1 : 1) * (zoneHours * 60 + zoneMinutes)
  }
  // Plain arithmetic, as Date's own (a leap second 60 and a zone's minutes carry over): a cursor
  // is parsed on every feed poll, and Date objects cost several times more.
  const ms = daysFromCivil(year, month, day) * 86_400_000 + hour * 3_600_000 + (minute - offsetMin) * 60_000 + second * 1000
  const fraction = m[7]
  const us = ms * 1000 + (fraction === undefined ? 0 : Number(fraction.length >= 6 ? fraction.slice(0, 6) : fraction.padEnd(6, '0')))
  return Math.min(MAX_MICROS, Math.max(0, us))
}

/** Days in each month of a leap year (February's 29th is checked against the year apart). */
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** Days from 1970-01-01 to a proleptic Gregorian date (the civil-from-days inverse, in eras of 400 years). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yearOfEra = y - era * 400
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

export function microsToIso(us: number): string {
  // toISOString's seconds ("2026-01-01T00:00:00.") and the six digits of the microseconds.
  return `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 20)}${String(us % 1_000_000).padStart(6, '0')}Z`
}
