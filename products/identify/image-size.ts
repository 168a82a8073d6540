/** The image types whose header is read here (those /identify accepts). */
export type SizedImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'

export interface ImageSize {
  width: number
  height: number
}

/**
 * The width and height an image declares in its header, read without decoding a pixel: PNG's
 * IHDR, GIF's logical screen, JPEG's start-of-frame marker, WebP's VP8/VP8L/VP8X chunk. Null
 * when the header is cut short or not of that type (the reader could not decode it either).
 * A decoder allocates what the header declares, so this is what a pixel budget is checked on.
 */
export function imageSize(bytes: Buffer, type: SizedImageType): ImageSize | null {
  switch (type) {
    case 'image/png':
      // Signature (8), then the IHDR chunk: length (4), "IHDR", width, height (big-endian).
      if (bytes.length < 24 || bytes.toString('latin1', 12, 16) !== 'IHDR') return null
      return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
    case 'image/gif':
      if (bytes.length < 10) return null
      return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) }
    case 'image/jpeg':
      return jpegSize(bytes)
    case 'image/webp':
      return webpSize(bytes)
  }
}

/** Start-of-frame markers (SOF0–SOF15 but DHT, JPG and DAC, which share the range). */
const isStartOfFrame = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc

function jpegSize(b: Buffer): ImageSize | null {
  let i = 2
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null
    const marker = b[i + 1]!
    // Fill bytes and markers without a length.
    if (marker === 0xff) {
      i++
      continue
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2
      continue
    }
    const length = b.readUInt16BE(i + 2)
    if (isStartOfFrame(marker)) {
      if (i + 9 > b.length) return null
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) }
    }
    // Start of scan before any frame header, or a length that goes nowhere: not a JPEG we can size.
    if (marker === 0xda || length < 2) return null
    i += 2 + length
  }
  return null
}

function webpSize(b: Buffer): ImageSize | null {
  if (b.length < 30) return null
  const chunk = b.toString('latin1', 12, 16)
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) }
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21)
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) }
  }
  if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff }
  return null
}
