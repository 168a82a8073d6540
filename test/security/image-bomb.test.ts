import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { imageSize } from '../../products/identify/image-size.ts'
import type { ImageType } from '../../products/identify/image.ts'
import { renderChart } from '../setup/chart-image.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { median } from '../setup/hostile-client.ts'
import { postHead, sendAndWait } from '../setup/raw-http.ts'

/**
 * Attack (issue 20, item 8): a 1.5 MB PNG declaring 40,000 × 40,000 pixels posted to
 * POST /identify was handed to Tesseract: 5.6 s of the reader and 1.5 GB more memory before it
 * answered 415. Now the width and height are read from the header (PNG, JPEG, GIF, WebP) before
 * the access gate, and an image over IDENTIFY_MAX_PIXELS (25 MP) is refused 413 in milliseconds;
 * the reader never sees it.
 */

let env: Embedded
let port: number
let reads = 0
/** The reader itself, uncounted: the baseline a refusal is measured against. */
let readUncounted: (bytes: Buffer) => Promise<unknown>

beforeAll(async () => {
  env = await startEmbedded()
  await env.ingestThrough(3)
  // Count what reaches the reader (the real one: it still reads whatever passes).
  const reader = env.api.deps.textReader!
  const read = reader.read.bind(reader)
  readUncounted = read
  reader.read = (bytes) => {
    reads++
    return read(bytes)
  }
  port = Number(new URL(await env.api.app.listen({ port: 0, host: '127.0.0.1' })).port)
})

afterAll(async () => {
  await env?.close()
})

/** A real PNG whose IHDR declares another size (a decoder would allocate width × height × 4 bytes), padded to `padTo` bytes with an ancillary chunk. */
function pngDeclaring(png: Buffer, width: number, height: number, padTo = 0): Buffer {
  const out = Buffer.from(png)
  out.writeUInt32BE(width, 16)
  out.writeUInt32BE(height, 20)
  if (padTo <= out.length) return out
  const pad = Buffer.alloc(padTo - out.length - 12, 0x61)
  const chunk = Buffer.concat([Buffer.alloc(4), Buffer.from('tEXt'), pad, Buffer.alloc(4)])
  chunk.writeUInt32BE(pad.length, 0)
  // Before IEND (the last 12 bytes).
  return Buffer.concat([out.subarray(0, out.length - 12), chunk, out.subarray(out.length - 12)])
}

/** A real JPEG whose start-of-frame declares another size. */
function jpegDeclaring(jpeg: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(jpeg)
  for (let i = 2; i + 9 < out.length; ) {
    const marker = out[i + 1]!
    if (marker >= 0xc0 && marker <= 0xc3) {
      out.writeUInt16BE(height, i + 5)
      out.writeUInt16BE(width, i + 7)
      return out
    }
    i += 2 + out.readUInt16BE(i + 2)
  }
  throw new Error('no start-of-frame in the JPEG')
}

const gifDeclaring = (w: number, h: number) => {
  const b = Buffer.alloc(32)
  b.write('GIF89a', 0, 'latin1')
  b.writeUInt16LE(w, 6)
  b.writeUInt16LE(h, 8)
  return b
}

const webpDeclaring = (w: number, h: number) => {
  const b = Buffer.alloc(64)
  b.write('RIFF', 0, 'latin1')
  b.writeUInt32LE(56, 4)
  b.write('WEBPVP8X', 8, 'latin1')
  b.writeUInt32LE(10, 16)
  b.writeUIntLE(w - 1, 24, 3)
  b.writeUIntLE(h - 1, 27, 3)
  return b
}

/** POST /identify on a socket of its own, the request built before the clock starts: status, body, and milliseconds until the answer closed the socket. */
async function identify(bytes: Buffer, type: ImageType): Promise<{ status: number; body: any; ms: number }> {
  const payload = Buffer.from(JSON.stringify({ image: bytes.toString('base64'), media_type: type }))
  const { answer } = sendAndWait(port, Buffer.concat([postHead('/identify', payload.length, { connection: 'close' }), payload]))
  const a = await answer
  // The body may be chunked; the JSON object is what lies between its outer braces.
  const json = a.body.slice(a.body.indexOf('{'), a.body.lastIndexOf('}') + 1)
  return { status: a.status, body: JSON.parse(json), ms: a.closedAfterMs }
}

describe('image bombs', () => {
  it('the header sizes of real PNG and JPEG screenshots are read exactly', async () => {
    expect(imageSize(await renderChart({ title: 'LUDO / WETH', format: 'png' }), 'image/png')).toEqual({ width: 900, height: 500 })
    expect(imageSize(await renderChart({ title: 'LUDO / WETH', format: 'jpeg' }), 'image/jpeg')).toEqual({ width: 900, height: 500 })
    expect(imageSize(gifDeclaring(640, 480), 'image/gif')).toEqual({ width: 640, height: 480 })
    expect(imageSize(webpDeclaring(1920, 1080), 'image/webp')).toEqual({ width: 1920, height: 1080 })
  })

  it('a 1.5 MB PNG declaring 40,000 × 40,000 pixels: 413, never read, in less time than the reader takes on one ordinary screenshot', async () => {
    const png = await renderChart({ title: 'LUDO / WETH', format: 'png' })
    const bomb = pngDeclaring(png, 40_000, 40_000, 1_500_000)
    expect(bomb.length).toBe(1_500_000)
    // The first call warms the route up (compilation of its code paths); each after is timed.
    await identify(bomb, 'image/png')
    const times: number[] = []
    for (let i = 0; i < 5; i++) {
      const r = await identify(bomb, 'image/png')
      expect(r.status).toBe(413)
      expect(r.body.error).toMatchObject({ code: 'payload_too_large', details: { width: 40_000, height: 40_000, max_pixels: 25_000_000 } })
      times.push(r.ms)
    }
    // The baseline, in the same run: the reader on the 900 × 500 screenshot the bomb was made from
    // (the bomb itself, handed to it, took 5.6 s). A fixed bound in ms failed on a loaded machine.
    const t0 = performance.now()
    await readUncounted(png)
    const readMs = performance.now() - t0
    console.log(`PNG bomb (1.5 MB, 40,000 × 40,000): 413 in ${times.map((t) => t.toFixed(1)).join(', ')} ms; the reader on the 900 × 500 screenshot: ${readMs.toFixed(0)} ms (${(readMs / median(times)).toFixed(1)}x the refusal)`)
    expect(median(times)).toBeLessThan(readMs)
    expect(reads).toBe(0)
  })

  it('JPEG, GIF and WebP headers over the budget: 413, never read; a screenshot within it is still read', async () => {
    const jpeg = await renderChart({ title: 'LUDO / WETH', format: 'jpeg' })
    for (const [bytes, type] of [
      [jpegDeclaring(jpeg, 60_000, 60_000), 'image/jpeg'],
      [gifDeclaring(65_535, 65_535), 'image/gif'],
      [webpDeclaring(30_000, 30_000), 'image/webp'],
    ] as const) {
      const r = await identify(bytes, type)
      expect([r.status, r.body.error.code], type).toEqual([413, 'payload_too_large'])
    }
    expect(reads).toBe(0)
    const ok = await identify(jpeg, 'image/jpeg')
    expect(ok.status).toBe(200)
    expect(reads).toBe(1)
  })
})
