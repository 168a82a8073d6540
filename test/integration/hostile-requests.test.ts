import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BODY_LIMIT_BYTES } from '../../api/app.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'

/**
 * Requests no client should send: oversized bodies, deeply nested JSON, invalid UTF-8, huge
 * query strings, header floods. Each answers 4xx (in the error body where the service answers
 * at all: Node's HTTP parser refuses over-long heads itself with 431) and the service stays
 * healthy and keeps answering.
 */

let env: Embedded
let base: string
let port: number

beforeAll(async () => {
  env = await startEmbedded()
  await env.ingestThrough(5)
  base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
  port = Number(new URL(base).port)
})

afterAll(async () => {
  await env?.close()
})

/** Send raw bytes on a socket; answer the status line's code and the body text. */
function raw(request: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (d) => chunks.push(d))
    socket.on('error', (err) => (chunks.length ? undefined : reject(err)))
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1')
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text: text.split('\r\n\r\n').slice(1).join('\r\n\r\n') })
    })
    socket.end(request)
  })
}

const post = (path: string, body: Buffer, contentType = 'application/json') =>
  Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`), body])

function errorCode(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code
  } catch {
    return undefined
  }
}

async function healthy(): Promise<void> {
  const res = await fetch(`${base}/health`)
  expect(res.status).toBe(200)
  expect((await fetch(`${base}/stats`)).status).toBe(200)
}

describe('hostile requests answer 4xx and leave the service healthy', () => {
  it('a body over the limit: 413 payload_too_large', async () => {
    const big = Buffer.from(JSON.stringify({ image: 'A'.repeat(BODY_LIMIT_BYTES + 1024) }))
    const r = await raw(post('/identify', big))
    expect(r.status).toBe(413)
    expect(errorCode(r.text)).toBe('payload_too_large')
    await healthy()
  })

  it('deeply nested JSON: 400 (413 past a JSON route body limit)', async () => {
    // Within a JSON route's body limit (a few KiB): refused for its depth.
    const depth = 2_000
    const nested = Buffer.from(`{"redirect_uris":${'['.repeat(depth)}${']'.repeat(depth)}}`)
    const r = await raw(post('/mcp/account/register', nested))
    expect([r.status, errorCode(r.text)]).toEqual([400, 'invalid_parameter'])
    // Deep objects too, refused while the body is read (before any access check).
    const objects = Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)
    for (const path of ['/admin/keys', '/alerts/webhook', '/identify']) {
      const o = await raw(post(path, objects))
      expect([o.status, errorCode(o.text)], path).toEqual([400, 'invalid_parameter'])
    }
    // Far deeper: larger than a JSON route reads at all, and refused for depth where large bodies are read.
    const deep = Buffer.from(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`)
    const small = await raw(post('/alerts/webhook', deep))
    expect([small.status, errorCode(small.text)]).toEqual([413, 'payload_too_large'])
    const large = await raw(post('/identify', deep))
    expect([large.status, errorCode(large.text)]).toEqual([400, 'invalid_parameter'])
    await healthy()
  })

  it('invalid UTF-8 in a JSON body or a query: 400', async () => {
    const body = Buffer.concat([Buffer.from('{"redirect_uris":["https://a.example/'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"]}')])
    const r = await raw(post('/mcp/account/register', body))
    expect([r.status, errorCode(r.text)]).toEqual([400, 'invalid_parameter'])
    expect(r.text).toMatch(/UTF-8/)
    const q = await raw(Buffer.from('GET /search?q=%FF%FE HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'))
    expect([q.status, errorCode(q.text)]).toEqual([400, 'invalid_parameter'])
    // Raw bytes over 0x7f in the request line itself.
    const line = await raw(Buffer.concat([Buffer.from('GET /search?q='), Buffer.from([0xff, 0xc0]), Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]))
    expect(line.status).toBeGreaterThanOrEqual(400)
    expect(line.status).toBeLessThan(500)
    await healthy()
  })

  it('a huge query string and a header flood: 4xx', async () => {
    const long = await raw(Buffer.from(`GET /search?q=${'a'.repeat(200_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`))
    expect(long.status).toBe(431)
    const headers = Array.from({ length: 5000 }, (_, i) => `X-Flood-${i}: ${'v'.repeat(20)}`).join('\r\n')
    const flood = await raw(Buffer.from(`GET /health HTTP/1.1\r\nHost: x\r\n${headers}\r\nConnection: close\r\n\r\n`))
    expect(flood.status).toBe(431)
    // A body far over the limit announced up front is refused without reading it.
    const announced = await raw(Buffer.from(`POST /identify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${50 * 1024 ** 3}\r\nConnection: close\r\n\r\n{}`))
    expect(announced.status).toBe(413)
    await healthy()
  })
})
