/** Deepest nesting of arrays and objects a JSON request body may have. */
export const MAX_JSON_DEPTH = 64

const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * True when the JSON text in `bytes` nests arrays and objects deeper than `max`. One pass over
 * the bytes, outside strings (a string's brackets are text): a body of millions of `[` is
 * refused in milliseconds, before JSON.parse spends seconds of the event loop on it. Nothing is
 * validated here; malformed text is JSON.parse's to refuse.
 */
export function nestsDeeperThan(bytes: Uint8Array, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    if (inString) {
      if (b === BACKSLASH) i++
      else if (b === QUOTE) inString = false
    } else if (b === QUOTE) {
      inString = true
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > max) return true
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      depth--
    }
  }
  return false
}
