const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const ALPHABET_CODES = Buffer.from(ALPHABET, 'latin1')

/** Bytes as base58 (Bitcoin alphabet, as Solana addresses and signatures): leading zero bytes become '1'. */
export function base58(bytes: Uint8Array): string {
  // Base-58 digits, least significant first; a byte string of n bytes needs at most 1.37 n + 1.
  const digits = new Uint8Array(Math.ceil(bytes.length * 1.37) + 1)
  let length = 0
  for (const byte of bytes) {
    let carry = byte
    for (let i = 0; i < length; i++) {
      carry += digits[i]! * 256
      digits[i] = carry % 58
      carry = (carry / 58) | 0
    }
    while (carry > 0) {
      digits[length++] = carry % 58
      carry = (carry / 58) | 0
    }
  }
  // The characters gathered first and made into one flat string: appending one at a time leaves
  // a chain of a string object per character, kept as long as the result is (the simulated
  // Solana world holds tens of thousands of addresses and signatures).
  let zeros = 0
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++
  const chars = Buffer.alloc(zeros + length, ALPHABET_CODES[0])
  for (let i = 0; i < length; i++) chars[zeros + i] = ALPHABET_CODES[digits[length - 1 - i]!]!
  return chars.toString('latin1')
}
