import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, startSvcServer } from '../test/setup/svc-process.ts'
import { waitLive } from './load.bench.ts'
import type { BenchResult } from './result.ts'

const SECONDS = Number(process.env.DOOR_SECONDS ?? 10)
const ADMIN = 'bench-admin-token-0123456789abcdef'
/** A CPU-bound analyst query that runs past its 30 s limit when nothing pauses it. */
const LONG_QUERY = 'SELECT count() FROM numbers(20000000000) WHERE cityHash64(number) % 7 = 1'

/**
 * The SQL door's cost to everyone else (`npm run bench -- door`): `svc start` on the default world
 * as its own process, live, then uncached API reads (`GET /wallet/{random address}`: a miss that
 * reads the engine every time) from this process for DOOR_SECONDS, first alone (the baseline),
 * then while an analyst's CPU-bound query runs through /clickhouse. Prints both p50/p99 and the
 * ratio of the p99s (1.0: the analyst costs the API nothing).
 */
export async function benchDoor(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-door-'))
  const svc = await startSvcServer(['start'], await freePort(), { DATA_DIR: join(dir, 'data'), SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn' }, 600_000)
  try {
    const base = svc.base
    await waitLive(base)
    const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
    const keyOf = async (plan: string) => ((await (await fetch(`${base}/admin/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ plan }) })).json()) as { key: string }).key
    const desk = await keyOf('desk')
    const analyst = await keyOf('analyst')

    const alone = await uncachedReads(base, desk)
    const started = Date.now()
    const long = fetch(`${base}/clickhouse?query=${encodeURIComponent(LONG_QUERY)}`, { headers: { 'x-clickhouse-key': analyst } }).then(async (r) => ({ status: r.status, seconds: (Date.now() - started) / 1000, text: (await r.text()).slice(0, 120) }))
    await new Promise((r) => setTimeout(r, 500))
    const beside = await uncachedReads(base, desk)
    const health = await fetch(`${base}/health`)
    const analystQuery = await long
    const notes = `alone p50 ${alone.p50.toFixed(1)} ms p99 ${alone.p99.toFixed(1)} ms (${alone.n} reads); beside the analyst query p50 ${beside.p50.toFixed(1)} ms p99 ${beside.p99.toFixed(1)} ms (${beside.n} reads); /health ${health.status} during it; the analyst query answered ${analystQuery.status} after ${analystQuery.seconds.toFixed(1)} s (${analystQuery.text.trim().split('\n')[0]})`
    console.log(`[door] ${notes}`)
    return [
      {
        name: 'uncached API read p99 beside a long analyst query',
        baseline: 'the same reads with no analyst query, same run',
        ours: { value: Math.round(beside.p99 * 10) / 10, unit: 'ms p99' },
        base: { value: Math.round(alone.p99 * 10) / 10, unit: 'ms p99' },
        ratio: alone.p99 / beside.p99,
        notes,
      },
    ]
  } finally {
    await svc.stop()
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
  }
}

/** GET /wallet/{a fresh random address} one after another for DOOR_SECONDS: latency percentiles. */
async function uncachedReads(base: string, key: string): Promise<{ n: number; p50: number; p99: number }> {
  const times: number[] = []
  const until = Date.now() + SECONDS * 1000
  while (Date.now() < until) {
    const address = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString('hex')}`
    const t0 = performance.now()
    const res = await fetch(`${base}/wallet/${address}`, { headers: { 'x-svc-key': key } })
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`/wallet answered ${res.status}`)
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))]!
  return { n: times.length, p50: at(0.5), p99: at(0.99) }
}
