import { encodeAbiParameters, getAddress, type AbiParameter } from 'viem'
import { describe, expect, it } from 'vitest'
import { encodeStatic } from '../../pipelines/sim/abi-words.ts'
import { createRng } from '../../pipelines/sim/prng.ts'

/** The simulator's static encoder against viem's encodeAbiParameters, the independent reference. */

const rng = createRng(0x5eed)
const randomHex = (digits: number) => Array.from({ length: digits }, () => '0123456789abcdef'[Math.floor(rng.float() * 16)]).join('')
/** Lower case, or checksummed (viem refuses other mixed case). */
const randomAddress = () => (rng.float() < 0.5 ? `0x${randomHex(40)}` : getAddress(`0x${randomHex(40)}`))
const randomBits = (bits: number) => {
  let v = 0n
  for (let i = 0; i < bits; i += 16) v = (v << 16n) | BigInt(Math.floor(rng.float() * 65536))
  return v & ((1n << BigInt(bits)) - 1n)
}

/** Values of a type: its edges, then random ones of every magnitude. */
function valuesOf(type: string, n: number): unknown[] {
  if (type === 'address') return Array.from({ length: n }, randomAddress).concat('0x0000000000000000000000000000000000000000')
  if (type === 'bytes32') return Array.from({ length: n }, () => `0x${randomHex(64)}`)
  if (type === 'bool') return [true, false]
  const signed = type.startsWith('int')
  const bits = Number(type.slice(signed ? 3 : 4))
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n
  const out: unknown[] = [min, max, 0n, 1n, ...(signed ? [-1n] : [])]
  for (let i = 0; i < n; i++) {
    const magnitude = randomBits(1 + Math.floor(rng.float() * (signed ? bits - 1 : bits)))
    out.push(signed && rng.float() < 0.5 ? -magnitude : magnitude)
  }
  // Small ones as numbers, as the world passes ticks and fees.
  if (bits <= 48) out.push(Number(max), Number(min), 7, ...(signed ? [-7] : []))
  return out
}

const TYPES = ['address', 'bytes32', 'bool', 'uint24', 'uint112', 'uint128', 'uint160', 'uint256', 'int24', 'int128', 'int256']

describe('encodeStatic (the simulator logs’ words)', () => {
  for (const type of TYPES) {
    it(`encodes ${type} as viem does`, () => {
      const params: AbiParameter[] = [{ type }]
      for (const v of valuesOf(type, 500)) expect(encodeStatic(params, [v]), `${type} ${String(v)}`).toBe(encodeAbiParameters(params, [v]))
    })
  }

  it('encodes a tuple of the simulator’s events as viem does (a v4 swap and a v3 pool creation)', () => {
    const swap: AbiParameter[] = [{ type: 'int128' }, { type: 'int128' }, { type: 'uint160' }, { type: 'uint128' }, { type: 'int24' }, { type: 'uint24' }]
    for (let i = 0; i < 200; i++) {
      const values = swap.map((p) => {
        const some = valuesOf(p.type, 3)
        return some[Math.floor(rng.float() * some.length)]
      })
      expect(encodeStatic(swap, values)).toBe(encodeAbiParameters(swap, values))
    }
    const created: AbiParameter[] = [{ type: 'int24' }, { type: 'address' }]
    const values = [-60, randomAddress()]
    expect(encodeStatic(created, values)).toBe(encodeAbiParameters(created, values))
  })

  it('refuses what viem refuses: a value out of the type’s range, a short address, a fraction', () => {
    const cases: Array<[string, unknown]> = [
      ['uint24', 1n << 24n],
      ['uint256', -1n],
      ['int24', 1n << 23n],
      ['int24', -(1n << 23n) - 1n],
      ['address', '0x1234'],
      ['address', `0x${'g'.repeat(40)}`],
      ['uint24', 1.5],
    ]
    for (const [type, v] of cases) {
      expect(() => encodeAbiParameters([{ type }], [v]), `viem ${type} ${String(v)}`).toThrow()
      expect(() => encodeStatic([{ type }], [v]), `ours ${type} ${String(v)}`).toThrow()
    }
  })
})
