import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, startSvcServer } from '../test/setup/svc-process.ts'
import { formatWaits, waitBuckets, waitLive, waitsBetween } from './live-service.ts'
import type { BenchResult } from './result.ts'

const SECONDS = Number(process.env.DOOR_SECONDS ?? 8)
const ADMIN = 'bench-admin-token-0123456789abcdef'
/** Launched tokens whose structure and forensics scans are queued beside the analyst query (two jobs each, within SCAN_QUEUE_MAX). */
const SCANNED_TOKENS = Number(process.env.DOOR_SCANNED_TOKENS ?? 90)
/** A CPU-bound analyst query that runs past its 30 s limit when nothing pauses it. */
const LONG_QUERY = 'SELECT count() FROM numbers(20000000000) WHERE cityHash64(number) % 7 = 1'

/**
 * The SQL door's cost to everyone else (`npm run bench -- door`): `svc start` on the default world
 * as its own process, live, then uncached API reads from this process for DOOR_SECONDS, first
 * alone (the baseline), then while an analyst's CPU-bound query runs through /clickhouse and the
 * structure and forensics scans of the DOOR_SCANNED_TOKENS (90) launched tokens with the most
 * transfers are queued: a
 * `/search` never asked before, each token's first `/verdict` (a miss that reads its key from the
 * engine) and `/wallet/{random address}` (an insider flow read every time). Prints p50/p99 and the ratio of the p99s (1.0: the
 * analyst costs the API nothing).
 */
export async function benchDoor(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-door-'))
  // The bench queues many scans from one address: the per-caller scan limits are raised for it.
  const svc = await startSvcServer(['start'], await freePort(), { DATA_DIR: join(dir, 'data'), SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', SCAN_REQUESTS_PER_MINUTE_PER_IP: '1000', SCAN_REQUESTS_PER_MINUTE_PER_KEY: '1000' }, 600_000)
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
    // With it, structure and forensics scans of the launched tokens with the most transfers (the
    // heaviest to scan), queued for the scans role, which runs them one after another meanwhile.
    const busiest = (await (await fetch(`${base}/admin/sql`, { method: 'POST', headers: admin, body: JSON.stringify({ query: `SELECT token FROM transfers_by_token WHERE chain_id = 4663 AND token IN (SELECT token FROM launches WHERE chain_id = 4663) GROUP BY token ORDER BY count() DESC LIMIT ${SCANNED_TOKENS}` }) })).json()) as { rows: Array<{ token: string }> }
    for (const { token } of busiest.rows) {
      for (const kind of ['structure', 'forensics']) {
        const r = await fetch(`${base}/${kind}/${token}`, { method: 'POST', headers: { 'x-svc-key': desk } })
        if (!r.ok) throw new Error(`POST /${kind}/${token} answered ${r.status}: ${await r.text()}`)
      }
    }
    await new Promise((r) => setTimeout(r, 500))
    const beside = {
      search: await uncachedReads(base, desk, searchPaths),
      wallet: await uncachedReads(base, desk, walletPaths),
      verdict: await uncachedReads(base, desk, listed(tokens.slice(half).map((t) => `/verdict/${t}`))),
    }
    const health = await fetch(`${base}/health`)
    const jobs = (await (await fetch(`${base}/admin/sql`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        query: `SELECT state, count() AS n, any(reason) AS reason, toUnixTimestamp64Milli(max(at)) AS last FROM (
          SELECT argMax(state, version) AS state, argMax(reason, version) AS reason, max(updated_at) AS at FROM scan_jobs WHERE trigger = 'request' GROUP BY kind, token, job_id)
        GROUP BY state ORDER BY state`,
      }),
    })).json()) as { rows: Array<{ state: string; n: string; reason: string; last: string }> }
    const scans = `${busiest.rows.length * 2} scans queued with it (structure and forensics of the ${busiest.rows.length} launched tokens with the most transfers), when the reads ended: ${jobs.rows
      .map((j) => `${j.n} ${j.state}${j.reason ? ` (${j.reason.slice(0, 80)})` : ''}, the last ${((Number(j.last) - started) / 1000).toFixed(1)} s after the analyst query began`)
      .join('; ')}`
    const waitedBeside = formatWaits(waitsBetween(waitsBefore, await waits()))
    const analystQuery = await long
    const fmt = (r: Reads) => `p50 ${r.p50.toFixed(1)} ms p99 ${r.p99.toFixed(1)} ms (${r.n} reads)`
    const query = `${scans}; /health ${health.status} during it; the analyst query answered ${analystQuery.status} after ${analystQuery.seconds.toFixed(1)} s (${analystQuery.text.trim().split('\n')[0]}); what the service's queries waited before the engine ran them meanwhile (svc_engine_wait_seconds): ${waitedBeside}`
    const result = (name: string, what: string, a: Reads, b: Reads): BenchResult => {
      const notes = `${what}: alone ${fmt(a)}; beside the analyst query ${fmt(b)}; ${query}`
      console.log(`[door] ${notes}`)
      return { name, baseline: 'the same reads with no analyst query, same run', ours: { value: Math.round(b.p99 * 10) / 10, unit: 'ms p99' }, base: { value: Math.round(a.p99 * 10) / 10, unit: 'ms p99' }, ratio: a.p99 / b.p99, notes }
    }
    return [
      result('a search never asked before p99 beside a long analyst query and scans', 'GET /search?q={random}, answered from the kept token index', alone.search, beside.search),
      result('a one-key miss (/verdict first read) p99 beside a long analyst query and scans', `GET /verdict/{token}, each token's first read, ${half} tokens per round`, alone.verdict, beside.verdict),
      result('an insider-flow read (/wallet random) p99 beside a long analyst query and scans', 'GET /wallet/{random address}, insider flow read every time', alone.wallet, beside.wallet),
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
