import { describe, expect, it } from 'vitest'
import {
  STRUCTURE_LARGE_HOLDERS,
  STRUCTURE_MIN_BPS,
  STRUCTURE_MIN_HOLDERS,
  STRUCTURE_MIN_RECEIVERS,
  STRUCTURE_MIN_ROTATING,
  structureVerdict,
  type StructureFacts,
} from '../../products/structure/structure-verdict.ts'

const SUPPLY = 1_000_000n
/** `bps` basis points of SUPPLY. */
const pct = (bps: bigint) => (SUPPLY * bps) / 10_000n
const flat = (n: number, each: bigint) => Array.from({ length: n }, () => ({ then: each, now: each }))

/** A quiet window: 100 holders, the 10 largest unchanged, nothing exited, nothing new. */
function quiet(o: Partial<StructureFacts> = {}): StructureFacts {
  return {
    holders: 100,
    fullWindow: true,
    supply: SUPPLY,
    large: flat(STRUCTURE_LARGE_HOLDERS, 20_000n),
    topNow: flat(STRUCTURE_LARGE_HOLDERS, 20_000n),
    grew: { count: 0, amount: 0n },
    pools: { then: 300_000n, now: 300_000n },
    exited: { count: 0, then: 0n },
    newHolders: { count: 0, now: 0n },
    ...o,
  }
}

/** The largest holders lose `out` (spread over them), landing on `receivers` other wallets. */
function distributing(out: bigint, receivers: number, toPools = 0n): StructureFacts {
  const each = out / BigInt(STRUCTURE_LARGE_HOLDERS)
  const large = Array.from({ length: STRUCTURE_LARGE_HOLDERS }, () => ({ then: 20_000n, now: 20_000n - each }))
  return quiet({ large, topNow: large, grew: { count: receivers, amount: out - toPools }, pools: { then: 300_000n, now: 300_000n + toPools } })
}

/** `n` wallets exit holding `exited` in all, `m` new ones take `taken`. */
function rotating(n: number, exited: bigint, m: number, taken: bigint): StructureFacts {
  return quiet({ exited: { count: n, then: exited }, newHolders: { count: m, now: taken }, grew: { count: m, amount: taken } })
}

describe('structureVerdict()', () => {
  it('one constructed case per verdict', () => {
    expect(structureVerdict(quiet({ holders: 3 })).verdict).toBe('insufficient_data')
    expect(structureVerdict(distributing(pct(500n), 40)).verdict).toBe('distribution')
    const growing = Array.from({ length: STRUCTURE_LARGE_HOLDERS }, () => ({ then: 20_000n, now: 25_000n }))
    expect(structureVerdict(quiet({ topNow: growing, grew: { count: 10, amount: 50_000n } })).verdict).toBe('accumulation')
    expect(structureVerdict(rotating(8, pct(300n), 9, pct(280n))).verdict).toBe('rotation')
  })

  it('insufficient_data: below the holder minimum, without 24 h of history, or with no qualifying movement', () => {
    const strong = distributing(pct(500n), 40)
    expect(structureVerdict({ ...strong, holders: STRUCTURE_MIN_HOLDERS - 1 }).verdict).toBe('insufficient_data')
    expect(structureVerdict({ ...strong, holders: STRUCTURE_MIN_HOLDERS }).verdict).toBe('distribution')
    expect(structureVerdict({ ...strong, fullWindow: false }).verdict).toBe('insufficient_data')
    expect(structureVerdict(quiet()).verdict).toBe('insufficient_data')
  })

  it('distribution: qualifies at exactly the minimum share, not one basis point below; needs enough receivers or pools', () => {
    expect(structureVerdict(distributing(pct(STRUCTURE_MIN_BPS), 40)).verdict).toBe('distribution')
    expect(structureVerdict(distributing(pct(STRUCTURE_MIN_BPS - 1n), 40)).verdict).toBe('insufficient_data')
    expect(structureVerdict(distributing(pct(500n), STRUCTURE_MIN_RECEIVERS)).verdict).toBe('distribution')
    expect(structureVerdict(distributing(pct(500n), STRUCTURE_MIN_RECEIVERS - 1)).verdict).toBe('insufficient_data')
    // Into the pools (sold): one receiver is enough when pools took at least half.
    expect(structureVerdict(distributing(pct(500n), 0, pct(250n))).verdict).toBe('distribution')
    expect(structureVerdict(distributing(pct(500n), 0, pct(249n))).verdict).toBe('insufficient_data')
  })

  it('accumulation: the largest holders grow by at least the minimum share', () => {
    const grow = (by: bigint) => {
      const topNow = flat(STRUCTURE_LARGE_HOLDERS, 20_000n)
      topNow[0] = { then: 20_000n, now: 20_000n + by }
      return quiet({ topNow, grew: { count: 1, amount: by } })
    }
    expect(structureVerdict(grow(pct(STRUCTURE_MIN_BPS))).verdict).toBe('accumulation')
    expect(structureVerdict(grow(pct(STRUCTURE_MIN_BPS) - 1n)).verdict).toBe('insufficient_data')
  })

  it('rotation: enough exits and new holders of comparable size (half to twice)', () => {
    const e = pct(300n)
    expect(structureVerdict(rotating(STRUCTURE_MIN_ROTATING, e, STRUCTURE_MIN_ROTATING, e / 2n)).verdict).toBe('rotation')
    expect(structureVerdict(rotating(STRUCTURE_MIN_ROTATING, e, STRUCTURE_MIN_ROTATING, e / 2n - 1n)).verdict).toBe('insufficient_data')
    expect(structureVerdict(rotating(STRUCTURE_MIN_ROTATING, e, STRUCTURE_MIN_ROTATING, 2n * e)).verdict).toBe('rotation')
    expect(structureVerdict(rotating(STRUCTURE_MIN_ROTATING, e, STRUCTURE_MIN_ROTATING, 2n * e + 1n)).verdict).toBe('insufficient_data')
    expect(structureVerdict(rotating(STRUCTURE_MIN_ROTATING - 1, e, 5, e)).verdict).toBe('insufficient_data')
    expect(structureVerdict(rotating(5, pct(STRUCTURE_MIN_BPS - 1n), 5, pct(STRUCTURE_MIN_BPS - 1n))).verdict).toBe('insufficient_data')
  })

  it('when several rules qualify the strongest wins', () => {
    const f = rotating(8, pct(600n), 8, pct(600n))
    const d = distributing(pct(300n), 40)
    expect(structureVerdict({ ...f, large: d.large }).verdict).toBe('rotation')
    const d2 = distributing(pct(900n), 40)
    const j = structureVerdict({ ...f, large: d2.large, grew: { count: 48, amount: pct(900n) + pct(600n) } })
    expect(j.verdict).toBe('distribution')
    expect(j.strengths.rotation).toBe(600n)
    expect(j.strengths.distribution).toBe(900n)
  })
})
