import { randomBytes } from 'node:crypto'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { limitScanRequests } from '../../products/structure/scan-rate.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { startScansRole } from '../../bin/scans-role.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { activeScanJobCount } from '../../products/structure/scan-jobs.ts'
import { createMemoryStore } from '../../core/store/memory-store.ts'
import { ScanQueueFull } from '../../products/structure/scan-queue.ts'
import type { ScansWorker } from '../../pipelines/scans/scans-worker.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { until } from '../setup/until.ts'

/**
 * Attack (issue 20, item 5): scans were free and unlimited. 60 POST /structure/{token} in 34 s
 * stored 19 snapshots of one token; 3,000 POST /structure/<random address> (all 200) left 2,794
 * jobs queued, and a real POST /forensics/{token} sent right after finished 340 s later. Now an
 * address the chain has nothing of is refused 404 before queuing; scan requests are capped per
 * address and per key (429, Retry-After); callers' jobs queued or running are at most
 * SCAN_QUEUE_MAX (20 here; 429 when full) and the daily scans of watched tokens have a lane of
 * their own; a caller's structure scan at a block already scanned answers the job that did.
 */

const QUEUE_MAX = 20
let env: Embedded
let worker: ScansWorker | undefined
let normalMs = 0

beforeAll(async () => {
  env = await startEmbedded({ SCAN_QUEUE_MAX: String(QUEUE_MAX), SCAN_REQUESTS_PER_MINUTE_PER_IP: '100000', SCAN_REQUESTS_PER_MINUTE_PER_KEY: '3' })
  await env.ingestThrough(150)
})

afterAll(async () => {
  await worker?.stop()
  await env?.close()
})

const randomAddress = () => `0x${randomBytes(20).toString('hex')}`
const post = (url: string, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') => env.api.app.inject({ method: 'POST', url, headers, remoteAddress })

/** The simulated tokens with the most transfers. */
async function busyTokens(n: number): Promise<string[]> {
  const rows = await queryRows<{ token: string }>(env.rt.ch, 'SELECT token FROM erc20_transfers GROUP BY token ORDER BY count() DESC, token LIMIT {n:UInt32}', { n })
  return rows.map((r) => r.token)
}

/** POST a scan of a real token and wait until its job is done: milliseconds it took. */
async function realScan(kind: 'structure' | 'forensics', token: string): Promise<number> {
  const t0 = Date.now()
  const res = await post(`/${kind}/${token}`, {}, '10.9.9.9')
  expect(res.statusCode).toBe(200)
  const id = res.json().data.id
  await until(`the ${kind} scan of ${token}`, async () => ((await env.api.deps.scans.latest(kind, token))?.id === id && (await env.api.deps.scans.latest(kind, token))?.state === 'done' ? true : undefined))
  return Date.now() - t0
}

const activeRequested = () => activeScanJobCount(env.rt.ch, 4663, 'request', 24 * 3_600_000)

describe('scans are bounded', () => {
  it('3,000 scan requests for random addresses queue nothing (404 before queuing); a real scan still completes in its normal time', async () => {
    const [token, other] = await busyTokens(2)
    normalMs = await realScan('forensics', token!)
    const statuses: Record<number, number> = {}
    const t0 = Date.now()
    for (let batch = 0; batch < 60; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post(`/${i % 2 ? 'forensics' : 'structure'}/${randomAddress()}`)))
      for (const a of answers) statuses[a.statusCode] = (statuses[a.statusCode] ?? 0) + 1
    }
    const floodMs = Date.now() - t0
    const queued = await activeRequested()
    const afterMs = await realScan('forensics', other!)
    console.log(`3,000 random-address scan requests: ${JSON.stringify(statuses)} in ${floodMs} ms; ${queued} requested jobs active; a real forensics scan took ${normalMs} ms before and ${afterMs} ms after`)
    expect(statuses).toEqual({ 404: 3000 })
    expect(queued).toBeLessThanOrEqual(QUEUE_MAX)
    expect(queued).toBe(0)
    expect(afterMs).toBeLessThan(Math.max(3 * normalMs, normalMs + 5_000))
  })

  it("callers' jobs stop at the bound (429 with Retry-After); the daily lane still queues and runs", async () => {
    const [token, watched] = await busyTokens(4).then((t) => t.slice(2))
    await env.scans.stop()
    let refused = 0
    for (let i = 0; i < QUEUE_MAX + 5; i++) {
      await env.api.deps.scans.request('forensics', randomAddress(), 'request').catch((err: unknown) => {
        if (!(err instanceof ScanQueueFull)) throw err
        refused++
      })
    }
    expect(refused).toBe(5)
    expect(await activeRequested()).toBe(QUEUE_MAX)
    const full = await post(`/forensics/${token}`, {}, '10.8.8.8')
    expect([full.statusCode, full.json().error.code]).toEqual([429, 'rate_limited'])
    expect(full.headers['retry-after']).toMatch(/^\d+$/)
    // The daily scan of a watched token is not a caller's: it queues, and runs on its own lane.
    const daily = await env.api.deps.scans.request('structure', watched!, 'daily')
    expect(daily.state).toBe('queued')
    // The worker logs to lines this test reads.
    const lines: string[] = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) })
    worker = await startScansRole({ ...env.rt, logger }, env.api.deps.scans, { daily: { periodSeconds: 86_400, checkMs: 0 } })
    await until('the daily scan', async () => ((await env.api.deps.scans.latest('structure', watched!))?.state === 'done' ? true : undefined))
    // The 20 jobs of addresses with nothing on chain fail (one line each), and the lane has room again.
    await until('the lane to drain', async () => ((await activeRequested()) === 0 ? true : undefined))
    // Each failed scan: one line with its reason, no stack trace.
    const failed = lines.filter((l) => l.includes('"msg":"scan failed"'))
    expect(failed).toHaveLength(QUEUE_MAX)
    for (const l of failed) {
      expect(JSON.parse(l).reason).toMatch(/has been ingested/)
      expect(l).not.toMatch(/stack|\\n {4}at /)
    }
    expect(await realScan('forensics', token!)).toBeLessThan(Math.max(3 * normalMs, normalMs + 5_000))
  })

  it('a structure scan of a token at a block already scanned answers that job and stores no second snapshot', async () => {
    const [token] = await busyTokens(5).then((t) => t.slice(4))
    await realScan('structure', token!)
    const first = await env.api.deps.scans.latest('structure', token!)
    for (let i = 0; i < 5; i++) {
      const again = await post(`/structure/${token}`, {}, `10.7.7.${i}`)
      expect(again.json().data).toMatchObject({ id: first!.id, state: 'done' })
    }
    const [n] = await queryRows<{ n: string }>(env.rt.ch, 'SELECT count() AS n FROM structure_snapshots FINAL WHERE token = {t:String}', { t: token })
    expect(Number(n!.n)).toBe(1)
  })

  it('scan requests are capped per key whatever the address, and per address (429 with Retry-After)', async () => {
    const [token] = await busyTokens(1)
    const key = { 'x-svc-key': 'svc_live_made_up_key_for_the_cap' }
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await post(`/forensics/${token}`, key, `10.6.6.${i}`)).statusCode)
    expect(statuses.slice(0, 3).every((s) => s !== 429)).toBe(true)
    const over = await post(`/forensics/${token}`, key, '10.6.6.99')
    expect([over.statusCode, over.json().error.details.per]).toEqual([429, 'key'])
    expect(over.headers['retry-after']).toMatch(/^\d+$/)
    // Per address, counted in the store (here the in-memory one the embedded mode uses).
    const store = createMemoryStore()
    const request = { ip: '10.5.5.5', headers: {} }
    for (let i = 0; i < 3; i++) await limitScanRequests(store, request, { perAddress: 3, perKey: 100 })
    const err = await limitScanRequests(store, request, { perAddress: 3, perKey: 100 }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect([(err as ApiError).status, (err as ApiError).details?.per, (err as ApiError).headers?.['retry-after']]).toEqual([429, 'address', expect.stringMatching(/^\d+$/)])
    await limitScanRequests(store, { ip: '10.5.5.6', headers: {} }, { perAddress: 3, perKey: 100 })
  })
})
