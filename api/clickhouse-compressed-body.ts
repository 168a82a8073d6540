import { uncompressSync } from 'lz4-napi'

/**
 * A request body in ClickHouse's compressed block format (`decompress=1`), as its clients send
 * it: blocks of [CityHash128 checksum, 16 bytes][method, 1][compressed size with this 9-byte
 * header, UInt32 LE][decompressed size, UInt32 LE][payload]. The size field right before an
 * LZ4 payload is the prefix lz4-napi's block format expects, so a block decodes without copying.
 *
 * The checksum is not verified: ClickHouse's CityHash128 is version 1.0.2, which no npm package
 * computes. A corrupted block still fails: its sizes are checked, and what it decodes to is
 * parsed by the engine as SQL before anything runs.
 */

const HEADER_BYTES = 9
const CHECKSUM_BYTES = 16
const METHOD_NONE = 0x02
const METHOD_LZ4 = 0x82

export class CompressedBodyError extends Error {}

/** The body's blocks decoded and joined; at most `maxBytes` decoded (a small body may claim a huge size). */
export function decompressClickHouseBody(body: Buffer, maxBytes: number): Buffer {
  const parts: Buffer[] = []
  let decoded = 0
  for (let at = 0; at < body.length; ) {
    if (body.length - at < CHECKSUM_BYTES + HEADER_BYTES) throw new CompressedBodyError(`a compressed block is cut short at byte ${at}`)
    const method = body[at + CHECKSUM_BYTES]!
    const compressed = body.readUInt32LE(at + CHECKSUM_BYTES + 1)
    const size = body.readUInt32LE(at + CHECKSUM_BYTES + 5)
    const end = at + CHECKSUM_BYTES + compressed
    if (compressed < HEADER_BYTES || end > body.length) throw new CompressedBodyError(`a compressed block at byte ${at} claims ${compressed} bytes; ${body.length - at - CHECKSUM_BYTES} are left`)
    decoded += size
    if (decoded > maxBytes) throw new CompressedBodyError(`the compressed body decodes to more than ${maxBytes} bytes`)
    const payload = body.subarray(at + CHECKSUM_BYTES + HEADER_BYTES, end)
    let block: Buffer
    if (method === METHOD_NONE) block = payload
    else if (method === METHOD_LZ4) {
      try {
        block = uncompressSync(body.subarray(at + CHECKSUM_BYTES + 5, end))
      } catch (err) {
        throw new CompressedBodyError(`a compressed block at byte ${at} is not valid LZ4: ${(err as Error).message}`)
      }
    } else throw new CompressedBodyError(`compression method 0x${method.toString(16)} is not read here: send LZ4 (0x82) or none (0x02)`)
    if (block.length !== size) throw new CompressedBodyError(`a compressed block at byte ${at} decodes to ${block.length} bytes, not the ${size} it claims`)
    parts.push(block)
    at = end
  }
  return Buffer.concat(parts)
}
