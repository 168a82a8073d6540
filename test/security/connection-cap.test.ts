import { createServer, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { capConnections } from '../../api/connection-cap.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { errorCodeOf, sendAndWait } from '../setup/raw-http.ts'

/**
 * Attack (issue 20, item 2): about 19,800 connections that each sent headers and one body byte
 * used all 20,000 file descriptors, and /health stopped accepting connections. Now sockets are
 * counted when accepted, per client address (HTTP_MAX_CONNECTIONS_PER_IP) and in total
 * (HTTP_MAX_CONNECTIONS): one over either is answered 503 with Retry-After and our error body,
 * and closed, without reaching the HTTP parser.
 */

const PER_IP = 4
let env: Embedded
let port: number

beforeAll(async () => {
  env = await startEmbedded({ HTTP_MAX_CONNECTIONS_PER_IP: String(PER_IP) })
  port = Number(new URL(await env.api.app.listen({ port: 0, host: '127.0.0.1' })).port)
})

afterAll(async () => {
  await env?.close()
})

/** Open a socket and wait until it is connected; it then sends nothing (a client gone quiet). */
const idle = (p: number) =>
  new Promise<Socket>((resolve, reject) => {
    const s = connect(p, '127.0.0.1', () => resolve(s))
    s.on('error', reject)
  })

const GET_HEALTH = Buffer.from('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')

describe('connection caps', () => {
  it('one connection over the per-address cap: 503 with Retry-After and our error body, closed; served again once others close', async () => {
    const quiet = await Promise.all(Array.from({ length: PER_IP }, () => idle(port)))
    const over = await sendAndWait(port, GET_HEALTH).answer
    expect(over.status).toBe(503)
    expect(over.headers['retry-after']).toMatch(/^\d+$/)
    expect(errorCodeOf(over.body)).toBe('dependency_unavailable')
    expect(JSON.parse(over.body).error.details).toEqual({ limit: 'connections_per_address' })
    expect(over.closedAfterMs).toBeLessThan(1_000)
    for (const s of quiet) s.destroy()
    await new Promise((r) => setTimeout(r, 100))
    const again = await sendAndWait(port, GET_HEALTH).answer
    expect(again.status).toBe(200)
  })

  it('one connection over the total cap: 503 with Retry-After; the count falls as sockets close', async () => {
    const server: Server = createServer((_req, res) => res.end('ok'))
    const cap = capConnections(server, { total: 3, perAddress: null })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const p = (server.address() as { port: number }).port
    try {
      const quiet = await Promise.all([idle(p), idle(p), idle(p)])
      await new Promise((r) => setTimeout(r, 50))
      expect(cap.open()).toEqual({ total: 3, addresses: 1 })
      const over = await sendAndWait(p, GET_HEALTH).answer
      expect([over.status, errorCodeOf(over.body), JSON.parse(over.body).error.details.limit]).toEqual([503, 'dependency_unavailable', 'connections'])
      expect(over.headers['retry-after']).toMatch(/^\d+$/)
      quiet[0]!.destroy()
      await new Promise((r) => setTimeout(r, 50))
      expect(cap.open().total).toBe(2)
      expect((await sendAndWait(p, GET_HEALTH).answer).status).toBe(200)
      for (const s of quiet) s.destroy()
    } finally {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    }
  })
})
