import { getAddress, type Hex } from 'viem'
import { expect, it } from 'vitest'
import { decodeLog, type LogInput } from '../../pipelines/decode/index.ts'
import type { Rng } from '../../pipelines/sim/prng.ts'

/**
 * Registers one `decodeLog() reports <name> as malformed` test per case: each log must come
 * back as a `MalformedLog` with a reason and the signature its topic0 claimed.
 */
export function expectMalformed(cases: readonly (readonly [name: string, log: LogInput])[]): void {
  for (const [name, log] of cases) {
    it(`decodeLog() reports ${name} as malformed`, () => {
      const r = decodeLog(log)
      expect(r?.type).toBe('malformed')
      if (r?.type === 'malformed') {
        expect(r.reason.length).toBeGreaterThan(0)
        expect(r.event).toMatch(/^\w+\(/)
      }
    })
  }
}

/** A random address: the zero address with probability `zeroChance`, all-f 3% of the time. */
export function randomAddress(rng: Rng, zeroChance: number): Hex {
  if (rng.chance(zeroChance)) return '0x0000000000000000000000000000000000000000'
  if (rng.chance(0.03)) return '0xffffffffffffffffffffffffffffffffffffffff'
  const lower = ('0x' + rng.hex(40)) as Hex
  // Checksummed (mixed-case) input for some: the encoder accepts it, the output must be lowercase.
  return rng.chance(0.3) ? getAddress(lower) : lower
}

/** Flip the case of hex letters at random: nodes return lowercase, but nothing guarantees it. */
export function shuffleCase(rng: Rng, hex: string): string {
  let out = '0x'
  for (let i = 2; i < hex.length; i++) out += rng.chance(0.5) ? hex[i].toUpperCase() : hex[i]
  return out
}

/** 30% of the time, `log` in mixed case everywhere but topic0 (viem matches topic0 case-sensitively). */
export function withRandomCase(rng: Rng, log: LogInput): LogInput {
  if (!rng.chance(0.3)) return log
  return {
    address: shuffleCase(rng, log.address),
    topics: log.topics.map((t, i) => (i === 0 ? t : shuffleCase(rng, t))),
    data: shuffleCase(rng, log.data),
  }
}
