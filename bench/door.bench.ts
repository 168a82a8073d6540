import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, startSvcServer } from '../test/setup/svc-process.ts'
import { formatWaits, waitBuckets, waitLive, waitsBetween } from './live-service.ts'
import type { BenchResult } from './result.ts'

const SECONDS = Number(process.env.DOOR_SECONDS ?? 8)
const ADMIN = 'bench-admin-token-0123456789abcdef'
/** A CPU-bound analyst query that runs past its 30 s limit when nothing pauses it. */
const LONG_QUERY = 'SELECT count() FROM numbers(20000000000) WHERE cityHash64(number) % 7 = 1'

/**
 * The SQL door's cost to everyone else (`npm run bench -- door`): `svc start` on the default world
 * as its own process, live, then uncached API reads from this process for DOOR_SECONDS, first
 * alone (the baseline), then while an analyst's CPU-bound query runs through /clickhouse: a
 * `/search` never asked before, each token's first `/verdict` (a miss that reads its key from the
 * engine) and `/wallet/{random address}` (an insider flow read every time). Prints p50/p99 and the ratio of the p99s (1.0: the
 * analyst costs the API nothing).
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

    // Each token's first /verdict is a miss (its chain part, scan and mention authors read by key): half the tokens alone, half beside.
    const feed = (await (await fetch(`${base}/feed/new?limit=200`, { headers: { 'x-svc-key': desk } })).json()) as { data: { launches: Array<{ token: string }> } }
    const tokens = feed.data.launches.map((l) => l.token)
    const half = Math.floor(tokens.length / 2)
    const walletPaths = () => `/wallet/0x${Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString('hex')}`
    // A search never asked before (the issue's own example of a read the analyst once stalled).
    const searchPaths = () => `/search?q=${Math.random().toString(36).slice(2, 7)}`
    const alone = {
      search: await uncachedReads(base, desk, searchPaths),
      wallet: await uncachedReads(base, desk, walletPaths),
      verdict: await uncachedReads(base, desk, listed(tokens.slice(0, half).map((t) => `/verdict/${t}`))),
    }
    const waits = async () => waitBuckets(await (await fetch(`${base}/metrics`)).text())
    const waitsBefore = await waits()
    const started = Date.now()
    const long = fetch(`${base}/clickhouse?query=${encodeURIComponent(LONG_QUERY)}`, { headers: { 'x-clickhouse-key': analyst } }).then(async (r) => ({ status: r.status, seconds: (Date.now() - started) / 1000, text: (await r.text()).slice(0, 120) }))
    await new Promise((r) => setTimeout(r, 500))
    const beside = {
      search: await uncachedReads(base, desk, searchPaths),
      wallet: await uncachedReads(base, desk, walletPaths),
      verdict: await uncachedReads(base, desk, listed(tokens.slice(half).map((t) => `/verdict/${t}`))),
    }
    const health = await fetch(`${base}/health`)
    const waitedBeside = formatWaits(waitsBetween(waitsBefore, await waits()))
    const analystQuery = await long
    const fmt = (r: Reads) => `p50 ${r.p50.toFixed(1)} ms p99 ${r.p99.toFixed(1)} ms (${r.n} reads)`
    const query = `/health ${health.status} during it; the analyst query answered ${analystQuery.status} after ${analystQuery.seconds.toFixed(1)} s (${analystQuery.text.trim().split('\n')[0]}); what the service's queries waited before the engine ran them meanwhile (svc_engine_wait_seconds): ${waitedBeside}`
    const result = (name: string, what: string, a: Reads, b: Reads): BenchResult => {
      const notes = `${what}: alone ${fmt(a)}; beside the analyst query ${fmt(b)}; ${query}`
      console.log(`[door] ${notes}`)
      return { name, baseline: 'the same reads with no analyst query, same run', ours: { value: Math.round(b.p99 * 10) / 10, unit: 'ms p99' }, base: { value: Math.round(a.p99 * 10) / 10, unit: 'ms p99' }, ratio: a.p99 / b.p99, notes }
    }
    return [
      result('a search never asked before p99 beside a long analyst query', 'GET /search?q={random}, answered from the kept token index', alone.search, beside.search),
      result('a one-key miss (/verdict first read) p99 beside a long analyst query', `GET /verdict/{token}, each token's first read, ${half} tokens per round`, alone.verdict, beside.verdict),
      result('an insider-flow read (/wallet random) p99 beside a long analyst query', 'GET /wallet/{random address}, insider flow read every time', alone.wallet, beside.wallet),
    ]
  } finally {
    await svc.stop()
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
  }
}

interface Reads {
  n: number
  p50: number
  p99: number
}

/** Paths from a list, each once (undefined when it is used up). */
function listed(paths: string[]): () => string | undefined {
  let i = 0
  return () => paths[i++]
}

/** GET the next path, one after another, for DOOR_SECONDS or until the paths run out: latency percentiles. */
async function uncachedReads(base: string, key: string, next: () => string | undefined): Promise<Reads> {
  const times: number[] = []
  const until = Date.now() + SECONDS * 1000
  for (let path = next(); path !== undefined && Date.now() < until; path = next()) {
    const t0 = performance.now()
    const res = await fetch(`${base}${path}`, { headers: { 'x-svc-key': key } })
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`)
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))]!
  return { n: times.length, p50: at(0.5), p99: at(0.99) }
}
