import type { PriceCandle, PricePair } from '../records/price.ts'
import { DEFAULT_START_TIME } from './chain-sim.ts'
import { seedToU32 } from './prng.ts'

export interface PriceSimulatorOptions {
  seed: number | string
  pair: PricePair
  /** The price at `startMinute`. */
  startPrice: number
  /** Unix seconds (a multiple of 60) at which the price is `startPrice`. Default 2025-01-01T00:00:00Z. */
  startMinute?: number
  /** Annualised volatility of the log price. Default 0.7 (ETH-like). */
  volatility?: number
}

export interface PriceSimulator {
  readonly pair: PricePair
  /** The candle of the minute starting at `minute` (unix seconds, a multiple of 60, 1970 to 2097). */
  candleAt(minute: number): PriceCandle
}

/** Minute indices covered: [0, 2^26), unix minute 0 (1970) to about 2097. */
const LEVELS = 26
const SPAN = 2 ** LEVELS
const MINUTES_PER_YEAR = 525_960

/**
 * A seeded geometric random walk of one price, one candle per minute, reproducible for any
 * minute in any order without a cache or a replay: `candleAt(m)` is a pure function of
 * (seed, m).
 *
 * How: the walk is a Brownian path B over minute indices [0, 2^26] built by Lévy's midpoint
 * construction. B(0) = 0, B(2^26) is drawn, and the midpoint p of each dyadic interval [a, b]
 * is B(p) = (B(a) + B(b)) / 2 + sqrt((b - a) / 4) * Z(p), where Z(p) is a standard normal drawn
 * from a hash of (seed, p). Every dyadic point is the midpoint of exactly one interval, so B(k)
 * is found by descending 26 levels from the root, touching the same nodes whatever was asked
 * before; the result has exactly the law of a random walk with unit-variance steps. The log
 * price is log(startPrice) + sigma * (B(k) - B(start)), so the price at `startMinute` is
 * `startPrice`. A candle opens at B(k) and closes at B(k + 1) (a candle's close is the next
 * one's open); high and low add a hashed excursion beyond them. The float math is the same
 * operations in the same order on every call, and Math.log/exp/cos are V8's fdlibm port, so
 * the output does not vary across machines.
 */
export function createPriceSimulator(opts: PriceSimulatorOptions): PriceSimulator {
  const startMinute = opts.startMinute ?? DEFAULT_START_TIME
  const sigma = (opts.volatility ?? 0.7) / Math.sqrt(MINUTES_PER_YEAR)
  if (!(opts.startPrice > 0)) throw new RangeError(`startPrice must be positive, got ${opts.startPrice}`)
  const seed = seedToU32(`price-sim/${opts.pair}/${opts.seed}`)
  const gaussian = (domain: number, key: number) => {
    const u1 = uniform(seed, domain, key, 0)
    const u2 = uniform(seed, domain, key, 1)
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2)
  }
  const root = Math.sqrt(SPAN) * gaussian(0, 0)

  function brownian(k: number): number {
    let lo = 0
    let hi = SPAN
    let bLo = 0
    let bHi = root
    for (;;) {
      if (k === lo) return bLo
      if (k === hi) return bHi
      const mid = (lo + hi) / 2
      const bMid = (bLo + bHi) / 2 + Math.sqrt((hi - lo) / 4) * gaussian(1, mid)
      if (k < mid) {
        hi = mid
        bHi = bMid
      } else {
        lo = mid
        bLo = bMid
      }
    }
  }

  const index = (minute: number, what: string) => {
    if (!Number.isInteger(minute) || minute % 60 !== 0) throw new RangeError(`${what} must be unix seconds that are a multiple of 60, got ${minute}`)
    const k = minute / 60
    if (k < 0 || k >= SPAN) throw new RangeError(`${what} ${minute} is outside 1970 to 2097`)
    return k
  }
  const k0 = index(startMinute, 'startMinute')
  const logStart = Math.log(opts.startPrice)
  const b0 = brownian(k0)
  const priceAt = (k: number) => Math.exp(logStart + sigma * (brownian(k) - b0))

  function candleAt(minute: number): PriceCandle {
    const k = index(minute, 'minute')
    const open = priceAt(k)
    const close = priceAt(k + 1)
    const high = Math.max(open, close) * Math.exp(0.5 * sigma * Math.abs(gaussian(2, k)))
    const low = Math.min(open, close) * Math.exp(-0.5 * sigma * Math.abs(gaussian(3, k)))
    return { pair: opts.pair, minute, open: decimal(open), high: decimal(high), low: decimal(low), close: decimal(close) }
  }

  return { pair: opts.pair, candleAt }
}

/** A price as a decimal string with 8 decimals (rounding is monotone, so low <= open <= high survives it). */
function decimal(price: number): string {
  return price.toFixed(8)
}

/** A uniform in (0, 1] from (seed, domain, key, lane): murmur3's finalizer over each input in turn. */
function uniform(seed: number, domain: number, key: number, lane: number): number {
  let h = mix(seed ^ Math.imul(domain * 2 + lane + 1, 0x9e3779b9))
  h = mix(h ^ key)
  h = mix(h ^ 0x6a09e667)
  return ((h >>> 0) + 1) / 4294967296
}

function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b)
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35)
  return x ^ (x >>> 16)
}
