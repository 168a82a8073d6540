/** `n` as a 0x-prefixed hex string of `len` digits: addresses (40) and hashes (64) in test rows. */
export const hex = (n: number, len: number): string => '0x' + n.toString(16).padStart(len, '0')
