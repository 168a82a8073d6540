import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LARGE_BODY_LIMIT_BYTES } from '../../core/endpoint/body-limits.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { attackWatchingHealth, healthBaseline, healthBound, healthWhile, median, tally } from '../setup/hostile-client.ts'
import { postHead, sendAndWait } from '../setup/raw-http.ts'

/**
 * Attack (issue 20, item 2): request bodies had no time limit and every POST buffered up to
 * 8 MiB before any check. 100 connections each sending 8 MiB − 1 of a POST /identify body and
 * then going quiet held 700 MB for minutes. Now: the whole request must arrive within
 * HTTP_REQUEST_TIMEOUT_MS (1 s here) or the connection is answered 408 and closed; a large body
 * takes one of HTTP_LARGE_BODIES_MAX slots before it is read (503 with Retry-After without one);
 * /health keeps answering.
 */

const REQUEST_TIMEOUT_MS = 1_000
/** Large bodies read at once (all from one address here, so the per-address cap is raised to it). */
const LARGE_BODIES = 8
let env: Embedded
let base: string
let port: number

beforeAll(async () => {
  env = await startEmbedded({ HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), HTTP_LARGE_BODIES_MAX: String(LARGE_BODIES), HTTP_LARGE_BODIES_PER_IP: String(LARGE_BODIES) })
  await env.ingestThrough(3)
  base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
  port = Number(new URL(base).port)
})

afterAll(async () => {
  await env?.close()
})

describe('slow request bodies', () => {
  it('a body that stops midway is answered 408 and closed within the request timeout; /health keeps answering meanwhile', async () => {
    const quiet = await healthBaseline(base)
    const { answer } = sendAndWait(port, postHead('/mcp/account/register', 1_000), Buffer.from('{"redirect_'))
    const [closed, health] = await Promise.all([answer, healthWhile(base, answer)])
    console.log(`a body that stops midway: ${closed.status} after ${closed.closedAfterMs} ms; /health ms ${health.times.join(' ')} (quiet median ${quiet.toFixed(1)})`)
    expect(closed.status).toBe(408)
    // The timeout, plus Node's check interval (a quarter of it), plus scheduling.
    expect(closed.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50)
    expect(closed.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS * 2)
    expect(health.statuses.every((s) => s === 200)).toBe(true)
    expect(median(health.times)).toBeLessThan(healthBound(quiet))
  })

  it('100 connections each sending 8 MiB − 1 of a POST /identify body and going quiet: memory bounded by the large-body slots, every one closed within seconds, /health keeps answering', async () => {
    const quiet = await healthBaseline(base)
    const rssBefore = process.memoryUsage().rss
    let rssPeak = rssBefore
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20)
    // The attacker is another process: its writes never share this event loop with the server.
    const { answers, health } = await attackWatchingHealth(base, port, { count: 100, path: '/identify', declared: LARGE_BODY_LIMIT_BYTES, sent: LARGE_BODY_LIMIT_BYTES - 1 })
    clearInterval(sampler)

    const statuses = tally(answers)
    const grewMb = (rssPeak - rssBefore) / 1024 / 1024
    const slowestClose = Math.max(...answers.map((a) => a.closedAfterMs))
    console.log(`100 slow 8 MiB − 1 bodies: statuses ${JSON.stringify(statuses)}, RSS grew ${grewMb.toFixed(1)} MB at most, the last closed after ${slowestClose} ms, /health ms ${health.times.join(' ')} (quiet median ${quiet.toFixed(1)})`)
    // The bodies admitted to a slot time out (408); the rest are refused before their body is read
    // (503 with Retry-After; a client still pushing its body when the refused connection closes may
    // see the reset before the answer: 0). A slot freed by a timed-out body is taken by a request
    // whose head was read later: at most LARGE_BODIES at once.
    expect(statuses[408]).toBeGreaterThanOrEqual(LARGE_BODIES)
    expect((statuses[408] ?? 0) + (statuses[503] ?? 0) + (statuses[0] ?? 0)).toBe(100)
    expect(statuses[503] ?? 0).toBeGreaterThan(0)
    expect(answers.filter((a) => a.status === 503).every((a) => a.retryAfter !== null && a.code === 'dependency_unavailable')).toBe(true)
    // Every one closed within seconds (before: none closed after 320 s).
    expect(slowestClose).toBeLessThan(REQUEST_TIMEOUT_MS * 15)
    // Before: 700 MB held for minutes. Now the bodies read at once are the slots' (8 of 8 MiB); a
    // slot freed by a timed-out body is read into again before the collector has taken the old
    // one, so up to as much again may be held uncollected (a busy CI machine measured 100.6 MB,
    // a quiet one 60-70 MB).
    expect(grewMb).toBeLessThan((2 * LARGE_BODIES * LARGE_BODY_LIMIT_BYTES) / 1024 / 1024)
    expect(health.statuses.every((s) => s === 200)).toBe(true)
    expect(median(health.times)).toBeLessThan(healthBound(quiet))
  })
})
