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
 * the bytes outside strings (a string's brackets are text; a string is skipped to its closing
 * quote with a native search, so a megabyte of base64 costs next to nothing): a body of
 * millions of `[` is refused in milliseconds, before JSON.parse spends seconds of the event loop
 * on it. Nothing is validated here; malformed text is JSON.parse's to refuse.
 */
export function nestsDeeperThan(bytes: Uint8Array, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    if (b === QUOTE) {
      i = closingQuote(bytes, i)
      if (i < 0) return false
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > max) return true
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      depth--
    }
  }
  return false
}

/** The index of the quote closing the string opened at `open` (one not escaped by an odd run of backslashes), or -1. */
function closingQuote(bytes: Uint8Array, open: number): number {
  let at = open
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1)
    if (at < 0) return -1
    let backslashes = 0
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return at
  }
}
