const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

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
  let out = ''
  for (let i = 0; i < bytes.length && bytes[i] === 0; i++) out += '1'
  for (let i = length - 1; i >= 0; i--) out += ALPHABET[digits[i]!]
  return out
}
