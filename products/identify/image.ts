import { ApiError } from '../../core/endpoint/errors.ts'
import { imageSize } from './image-size.ts'

/** The image types /identify accepts. */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const
export type ImageType = (typeof IMAGE_TYPES)[number]

/** Largest screenshot accepted, decoded: 5 MiB (DESIGN §8: the identify image has a size cap). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024

/** Largest image read, in pixels, unless IDENTIFY_MAX_PIXELS says otherwise: 25 MP (a 5K screen is 14.7 MP). */
export const DEFAULT_MAX_PIXELS = 25_000_000

/** The type the bytes themselves declare (magic numbers), or null. */
export function sniffImageType(bytes: Buffer): ImageType | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png'
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg'
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.subarray(0, 6).toString('latin1'))) return 'image/gif'
  if (bytes.length >= 12 && bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp'
  return null
}

/**
 * Check the screenshot of an /identify body without decoding it whole: raw base64 or a data:
 * URL (whose type wins over `media_type`, default image/png). Refused with 400 when it is not
 * base64, 413 past the cap or when its header declares more than `maxPixels` pixels (a small
 * file can declare 40,000 × 40,000, and a decoder allocates what is declared), 415 when its first
 * bytes are not the image type declared or its header cannot be read. Runs before the access
 * gate, in milliseconds; `decodeImage` then decodes what passed.
 */
export function checkImage(image: string, mediaType: ImageType | undefined, maxPixels: number = DEFAULT_MAX_PIXELS): { payload: string; type: ImageType } {
  let declared: ImageType = mediaType ?? 'image/png'
  let payload = image
  const dataUrl = /^data:([\w/+.-]+)?(;[\w=-]+)*?;base64,/i.exec(image)
  if (dataUrl) {
    const t = dataUrl[1]?.toLowerCase()
    if (!t || !(IMAGE_TYPES as readonly string[]).includes(t)) {
      throw new ApiError('unsupported_media_type', `The data: URL's type ${t ?? '(none)'} is not one of ${IMAGE_TYPES.join(', ')}.`, { parameter: 'image' })
    }
    declared = t as ImageType
    payload = image.slice(dataUrl[0].length)
  } else if (image.startsWith('data:')) {
    throw new ApiError('invalid_parameter', 'image: a data: URL must be base64 (data:image/png;base64,...).', { parameter: 'image' })
  }
  payload = payload.replace(/\s+/g, '')
  if (!payload || payload.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(payload)) {
    throw new ApiError('invalid_parameter', 'image: expected base64 (raw or a data: URL).', { parameter: 'image' })
  }
  if ((payload.length / 4) * 3 > MAX_IMAGE_BYTES + 2) {
    throw new ApiError('payload_too_large', `The image is larger than ${MAX_IMAGE_BYTES} bytes decoded.`, { parameter: 'image', max_bytes: MAX_IMAGE_BYTES })
  }
  // 16 base64 characters are the first 12 bytes: enough for every magic number above.
  const actual = sniffImageType(Buffer.from(payload.slice(0, 16), 'base64'))
  if (actual !== declared) {
    throw new ApiError('unsupported_media_type', `The image is not ${declared}${actual ? ` (it is ${actual})` : ''}.`, { parameter: 'image', declared, detected: actual })
  }
  // PNG, GIF and WebP state their size in the first 30 bytes; a JPEG's frame header may follow
  // metadata segments, so its bytes are decoded whole (at most MAX_IMAGE_BYTES: milliseconds).
  const head = Buffer.from(declared === 'image/jpeg' ? payload : payload.slice(0, 64), 'base64')
  const size = imageSize(head, declared)
  if (!size || size.width === 0 || size.height === 0) {
    throw new ApiError('unsupported_media_type', `The image's ${declared} header does not give its width and height.`, { parameter: 'image', declared })
  }
  if (size.width * size.height > maxPixels) {
    throw new ApiError('payload_too_large', `The image declares ${size.width} × ${size.height} pixels; at most ${maxPixels} are read.`, { parameter: 'image', width: size.width, height: size.height, max_pixels: maxPixels })
  }
  return { payload, type: declared }
}

/** The screenshot's bytes, after `checkImage`. */
export function decodeImage(image: string, mediaType: ImageType | undefined, maxPixels?: number): { bytes: Buffer; type: ImageType } {
  const { payload, type } = checkImage(image, mediaType, maxPixels)
  return { bytes: Buffer.from(payload, 'base64'), type }
}
