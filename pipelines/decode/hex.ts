import type { MalformedLog } from './types.ts'

// Hot-path helpers: plain string slicing, no viem. A 32-byte word i of `data` sits at
// characters [2 + 64i, 66 + 64i) ('0x' prefix first).

/** Word `i` of `data` as an unsigned bigint. */
export function word(data: string, i: number): bigint {
  const start = 2 + 64 * i
  return BigInt('0x' + data.slice(start, start + 64))
}

/** The address right-aligned in a 32-byte topic, lowercase. */
export function topicAddress(topic: string): string {
  return ('0x' + topic.slice(26)).toLowerCase()
}

/** The address right-aligned in word `i` of `data`, lowercase. */
export function wordAddress(data: string, i: number): string {
  const start = 26 + 64 * i
  return ('0x' + data.slice(start, start + 40)).toLowerCase()
}

/**
 * Why a log cannot be `event` with `topicCount` topics and `words` data words, or null
 * when its shape fits. Data longer than needed is accepted, as viem (and Solidity's
 * decoder) accept it.
 */
export function shapeError(
  topics: readonly string[],
  data: string,
  topicCount: number,
  words: number,
): string | null {
  if (topics.length !== topicCount) return `expected ${topicCount} topics, got ${topics.length}`
  for (let i = 1; i < topicCount; i++) {
    if (topics[i].length !== 66) return `topic ${i} is not 32 bytes`
  }
  const need = 2 + 64 * words
  if ((data.length & 1) === 1) return 'data has an odd number of hex digits'
  if (data.length < need) return `expected ${words * 32} data bytes, got ${Math.max(0, (data.length - 2) >> 1)}`
  return null
}

export function malformed(event: string, reason: string): MalformedLog {
  return { type: 'malformed', event, reason }
}

const TWO_256 = 1n << 256n

/** Word `i` of `data` as a signed (two's-complement int256) bigint. */
export function signedWord(data: string, i: number): bigint {
  const start = 2 + 64 * i
  const v = BigInt('0x' + data.slice(start, start + 64))
  // The sign bit is set when the first hex digit is 8-f (or 8-F): char code 56 ('8') and up.
  return data.charCodeAt(start) >= 56 ? v - TWO_256 : v
}

/** The 32-byte topic as a lowercase `0x` + 64 hex string (a bytes32 such as a v4 pool id). */
export function topicBytes32(topic: string): string {
  return topic.toLowerCase()
}

/** Word `i` of `data` as a lowercase `0x` + 64 hex string (a bytes32). */
export function wordBytes32(data: string, i: number): string {
  const start = 2 + 64 * i
  return ('0x' + data.slice(start, start + 64)).toLowerCase()
}

const ZEROS_58 = '0'.repeat(58)
const FS_58 = 'f'.repeat(58)

// 24-bit fields (ticks, fees, tick spacings) are returned as numbers. Their word must be the
// value zero- or sign-extended to 32 bytes, as Solidity's ABI decoder requires; anything else
// (high garbage, non-hex) yields null and the log is malformed. viem reads the whole word
// instead and would hand back an out-of-range number; the tests pin that divergence.

/** A 64-hex-digit word as an int24, or null when it is not a sign-extended int24. */
export function int24(w: string): number | null {
  const low = Number('0x' + w.slice(58))
  if (Number.isNaN(low) || w.length !== 64) return null
  const head = w.slice(0, 58)
  if (low < 0x800000) return head === ZEROS_58 ? low : null
  return head === FS_58 || head.toLowerCase() === FS_58 ? low - 0x1000000 : null
}

/** A 64-hex-digit word as a uint24, or null when it is not a zero-extended uint24. */
export function uint24(w: string): number | null {
  const low = Number('0x' + w.slice(58))
  if (Number.isNaN(low) || w.length !== 64) return null
  return w.slice(0, 58) === ZEROS_58 ? low : null
}

/** Word `i` of `data` as its 64 hex digits (no prefix), for `int24`/`uint24`. */
export function rawWord(data: string, i: number): string {
  const start = 2 + 64 * i
  return data.slice(start, start + 64)
}

/** Topic `t`'s 64 hex digits (no prefix), for `int24`/`uint24`. */
export function rawTopic(topic: string): string {
  return topic.slice(2)
}
