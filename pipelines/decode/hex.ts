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
