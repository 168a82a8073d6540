import { describe, expect, it } from 'vitest'
import { isoToMicros, microsToIso } from '../../core/serving/cursor.ts'

/** A deterministic stream of numbers in [0, 1) (the same cases on every run). */
function seeded(seed: number): () => number {
  let x = seed
  return () => ((x = (x * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31)
}

const two = (n: number) => String(n).padStart(2, '0')

describe('feed cursors (ISO 8601 with microseconds)', () => {
  it('equal Date.parse to the millisecond for any time and zone from 1970 to 2105, and keep the microseconds', () => {
    const random = seeded(7)
    for (let i = 0; i < 20_000; i++) {
      const ms = Math.floor(random() * Date.UTC(2105, 0, 1))
      const us = Math.floor(random() * 1000)
      const zoneMinutes = Math.floor(random() * 24 * 60) * (random() < 0.5 ? -1 : 1)
      // The same instant written in another zone.
      const local = new Date(ms + zoneMinutes * 60_000).toISOString().slice(0, 23)
      const zone = zoneMinutes === 0 && random() < 0.5 ? 'Z' : `${zoneMinutes < 0 ? '-' : '+'}${two(Math.floor(Math.abs(zoneMinutes) / 60))}:${two(Math.abs(zoneMinutes) % 60)}`
      const text = `${local}${String(us).padStart(3, '0')}${zone}`
      const expected = Math.max(0, Date.parse(`${local}${zone}`) * 1000 + us)
      expect(isoToMicros(text), text).toBe(expected)
    }
  })

  it('writes six digits of microseconds after the seconds', () => {
    expect(microsToIso(Date.UTC(2026, 0, 1) * 1000 + 123_456)).toBe('2026-01-01T00:00:00.123456Z')
    expect(microsToIso(Date.UTC(2026, 10, 27, 15, 4, 5) * 1000 + 7)).toBe('2026-11-27T15:04:05.000007Z')
    expect(microsToIso(0)).toBe('1970-01-01T00:00:00.000000Z')
  })

  it('round-trips what the feed writes', () => {
    const random = seeded(11)
    for (let i = 0; i < 5_000; i++) {
      const us = Math.floor(random() * Date.UTC(2100, 0, 1)) * 1000 + Math.floor(random() * 1000)
      expect(isoToMicros(microsToIso(us))).toBe(us)
    }
  })

  it('reads a leap second as the next second, fractions past microseconds cut, a lower-case t and z', () => {
    expect(isoToMicros('2016-12-31T23:59:60Z')).toBe(Date.UTC(2017, 0, 1) * 1000)
    expect(isoToMicros('2026-01-01T00:00:00.123456789Z')).toBe(Date.UTC(2026, 0, 1) * 1000 + 123_456)
    expect(isoToMicros('2026-01-01t00:00:00.5z')).toBe(Date.UTC(2026, 0, 1) * 1000 + 500_000)
    expect(isoToMicros('2024-02-29T12:00:00+14:00')).toBe(Date.UTC(2024, 1, 28, 22) * 1000)
  })

  it('refuses what is not a date-time, and clamps to what a UInt32 of seconds holds', () => {
    for (const bad of ['2026-02-29T00:00:00Z', '2100-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-13-01T00:00:00Z', '2026-00-10T00:00:00Z', '2026-01-00T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T00:60:00Z', '2026-01-01T00:00:61Z', '2026-01-01T00:00:00+24:00', '2026-01-01T00:00:00+01:60', '2026-01-01 00:00:00Z', '2026-01-01T00:00:00', 'yesterday']) {
      expect(isoToMicros(bad), bad).toBeNull()
    }
    expect(isoToMicros('2000-02-29T00:00:00Z')).toBe(Date.UTC(2000, 1, 29) * 1000)
    expect(isoToMicros('1969-12-31T23:59:59Z')).toBe(0)
    expect(isoToMicros('9999-12-31T23:59:59Z')).toBe(4_294_967_295 * 1_000_000)
  })
})
