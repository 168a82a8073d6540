import type { AbiParameter } from 'viem'

/**
 * ABI encoding of static parameters (address, uintN, intN, bytes32, bool), one 32-byte word each:
 * what the simulator's logs need, at string speed. viem's encodeAbiParameters validates and pads
 * through several generic layers (an LRU-cached address check per address among them) and was a
 * tenth of the main thread during the default world's backfill. This encoder is checked against
 * viem's on random values of every type the simulator emits (test/unit/abi-words.test.ts), so the
 * decoders still read logs encoded as an independent implementation encodes them.
 */

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const BYTES32 = /^0x[0-9a-fA-F]{64}$/
const ZEROS = '0'.repeat(64)
const FS = 'f'.repeat(64)

/** One parameter's 64 hex digits (no 0x). Throws on a value the type cannot hold, as viem does. */
export function abiWord(type: string, value: unknown): string {
  if (type === 'address') {
    const a = value as string
    if (typeof a !== 'string' || !ADDRESS.test(a)) throw new Error(`abi: not an address: ${String(value)}`)
    return '000000000000000000000000' + a.slice(2).toLowerCase()
  }
  if (type === 'bytes32') {
    const b = value as string
    if (typeof b !== 'string' || !BYTES32.test(b)) throw new Error(`abi: not a bytes32: ${String(value)}`)
    return b.slice(2)
  }
  if (type === 'bool') {
    if (typeof value !== 'boolean') throw new Error(`abi: not a bool: ${String(value)}`)
    return value ? ZEROS.slice(1) + '1' : ZEROS
  }
  const { min, max } = integerRange(type)
  const v = typeof value === 'bigint' ? value : typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : undefined
  if (v === undefined) throw new Error(`abi: not an integer for ${type}: ${String(value)}`)
  if (v < min || v > max) throw new Error(`abi: ${v} out of range for ${type}`)
  if (v >= 0n) {
    const hex = v.toString(16)
    return ZEROS.slice(hex.length) + hex
  }
  // Two's complement over 256 bits: the digits of 2^256 + v.
  const hex = ((1n << 256n) + v).toString(16)
  return FS.slice(hex.length) + hex
}

/**
 * The values an integer type holds, worked out once per type: made on every word, its bigints
 * were a good part of the encoder's time in the simulator.
 */
const INTEGER_RANGES = new Map<string, { min: bigint; max: bigint }>()

function integerRange(type: string): { min: bigint; max: bigint } {
  const kept = INTEGER_RANGES.get(type)
  if (kept) return kept
  const signed = type.startsWith('int')
  if (!signed && !type.startsWith('uint')) throw new Error(`abi: ${type} is not a static type this encoder knows`)
  const bits = Number(type.slice(signed ? 3 : 4) || 256)
  const range = signed ? { min: -(1n << BigInt(bits - 1)), max: (1n << BigInt(bits - 1)) - 1n } : { min: 0n, max: (1n << BigInt(bits)) - 1n }
  INTEGER_RANGES.set(type, range)
  return range
}

/** The data of static parameters, 0x-prefixed, as encodeAbiParameters returns it. */
export function encodeStatic(params: readonly AbiParameter[], values: readonly unknown[]): `0x${string}` {
  if (params.length !== values.length) throw new Error(`abi: ${params.length} parameters, ${values.length} values`)
  let out = '0x'
  for (let i = 0; i < params.length; i++) out += abiWord(params[i]!.type, values[i])
  return out as `0x${string}`
}
