import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, startSvcServer } from '../test/setup/svc-process.ts'
import type { ClassFigures, LoadClass, LoadPlan, LoadReport } from './load-plan.ts'
import type { BenchResult } from './result.ts'

const SECONDS = Number(process.env.LOAD_SECONDS ?? 8)
const ADMIN = 'bench-admin-token-0123456789abcdef'

/**
 * The load bench (`npm run bench -- load`), measured as users see the service: `svc start` on
 * the default world as its own process (the 24 h backfill of both chains, then live), driven by
 * a separate load process (bench/load-driver.ts, autocannon), each class of callers alone and
 * then all at once, against a bare node:http server answering a /token answer's bytes in its own
 * process in the same run. Also the service's idle CPU share (process time over 20 s, no load).
 */
export async function benchLoad(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-load-'))
  const port = await freePort()
  const started = Date.now()
  const svc = await startSvcServer(['start'], port, { DATA_DIR: join(dir, 'data'), SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn' }, 600_000)
  let bare: ReturnType<typeof spawn> | undefined
  try {
    const base = svc.base
    const live = await waitLive(base)
    const servedSeconds = Math.round((Date.now() - started) / 1000)
    const metricsBefore = await scrape(base)
    const idle = await idleCpuShare(svc.child.pid!, 20)
    const perBatch = livePerBatch(metricsBefore, await scrape(base), 'chain-4663')
    const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
    const key = ((await (await fetch(`${base}/admin/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ plan: 'desk' }) })).json()) as { key: string }).key
    const keyed = { 'x-svc-key': key }
    const feed = (await (await fetch(`${base}/feed/new?limit=200`, { headers: keyed })).json()) as { data: { launches: Array<{ token: string }> } }
    const tokens = feed.data.launches.map((l) => l.token)
    if (tokens.length < 20) throw new Error(`only ${tokens.length} launches served`)
    const sql = (await (await fetch(`${base}/admin/sql`, { method: 'POST', headers: admin, body: JSON.stringify({ query: 'SELECT DISTINCT wallet FROM leaderboard_claims LIMIT 100' }) })).json()) as { rows: Array<{ wallet: string }> }
    const wallets = sql.rows.map((r) => r.wallet)
    const tokenBytes = Buffer.from(await (await fetch(`${base}/token/${tokens[0]}`, { headers: keyed })).arrayBuffer())

    const bodyFile = join(dir, 'token.json')
    writeFileSync(bodyFile, tokenBytes)
    const barePort = await freePort()
    bare = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'bare-server.ts'), bodyFile, String(barePort)], { stdio: ['ignore', 'pipe', 'inherit'] })
    await new Promise<void>((resolve) => bare!.stdout!.once('data', () => resolve()))

    const classes: LoadClass[] = [
      { name: '/token', what: `GET /token/{address} over ${tokens.length} tokens, key`, connections: 16, headers: keyed, paths: tokens.map((t) => `/token/${t}`) },
      { name: '/verdict', what: 'GET /verdict/{token}, key', connections: 8, headers: keyed, paths: tokens.map((t) => `/verdict/${t}`) },
      { name: '/structure', what: 'GET /structure/{token}, key', connections: 4, headers: keyed, paths: tokens.map((t) => `/structure/${t}`) },
      { name: '/wallet-receipt', what: `GET /wallet-receipt/{address} over ${wallets.length} roster wallets, key`, connections: 8, headers: keyed, paths: wallets.map((w) => `/wallet-receipt/${w}`) },
      { name: '/feed/new', what: 'GET /feed/new?limit=20 following next_since, key', connections: 8, headers: keyed, follow: { path: '/feed/new?limit=20', cursorField: 'next_since' } },
      { name: '/signals/calls', what: 'GET /signals/calls?limit=20 following next_since, key', connections: 4, headers: keyed, follow: { path: '/signals/calls?limit=20', cursorField: 'next_since' } },
      { name: '/agent/features', what: 'GET /agent/features?token=, key', connections: 4, headers: keyed, paths: tokens.map((t) => `/agent/features?token=${t}`) },
      { name: '/stats', what: 'GET /stats, free', connections: 4, paths: ['/stats'] },
      { name: 'MCP tools/call', what: 'POST /mcp tools/call svc_token, key', connections: 4, headers: keyed, mcp: { tool: 'svc_token', args: tokens.map((t) => ({ address: t })) } },
    ]
    const plan: LoadPlan = { base, bareBase: `http://127.0.0.1:${barePort}`, seconds: SECONDS, classes }
    const planFile = join(dir, 'plan.json')
    writeFileSync(planFile, JSON.stringify(plan))
    const report = await runDriver(planFile)
    const waits = engineWaits(await (await fetch(`${base}/metrics`)).text())
    const fmt = (f: ClassFigures) => `${f.rps} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms, p99.9 ${f.p999} ms, ${f.requests} requests, ${f.non2xx} non-2xx, ${f.errors} errors`
    return [
      {
        name: `load: the service idle and live on the default world (served ${servedSeconds} s after start, at blocks ${JSON.stringify(live)})`,
        baseline: 'one core',
        ours: { value: Math.round(idle * 1000) / 10, unit: '% of a core (CPU of the process tree, engine included, over 20 s, no requests)' },
        base: { value: 100, unit: '% of a core' },
        ratio: idle,
        notes: `a live chain-4663 batch over those 20 s (${perBatch.batches} batches): ${perBatch.text} | what a query waited before the engine ran it, over the whole run (svc_engine_wait_seconds): ${waits}`,
      },
      ...classes.map((c, i) => {
        const alone = report.alone[i]!
        const mix = report.mix[i]!
        return {
          name: `load: ${c.name} alone (${c.what}), ${c.connections} connections, from a separate process`,
          baseline: 'a bare node:http server answering the same /token bytes, 16 connections, same run',
          ours: { value: alone.rps, unit: 'req/s' },
          base: { value: report.bare.rps, unit: 'req/s' },
          ratio: alone.rps / report.bare.rps,
          notes: `${report.first[i] ? `first ask of each of its ${report.first[i]!.requests} keys: p50 ${report.first[i]!.p50} ms, p99 ${report.first[i]!.p99} ms | ` : ''}alone: ${fmt(alone)} | all ${classes.length} classes at once: ${fmt(mix)} | bare: ${fmt(report.bare)}`,
        }
      }),
    ]
  } finally {
    bare?.kill('SIGKILL')
    await svc.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Wait until every chain's ingested block advances at the live pace (both backfills are in: the
 * 5042 simulator starts once 4663 is live), read from /metrics (svc_measured_through_block by chain).
 */
export async function waitLive(base: string): Promise<Record<string, number | null>> {
  const read = async () => {
    const text = await (await fetch(`${base}/metrics`)).text()
    return Object.fromEntries([...text.matchAll(/^svc_measured_through_block\{chain="(\d+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]))
  }
  let prev = await read()
  let calm = 0
  const deadline = Date.now() + 900_000
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 3_000))
    const now = await read()
    const live = Object.keys(now).length >= 2 && Object.keys(now).every((c) => now[c] !== null && prev[c] !== null && now[c]! - prev[c]! <= 6)
    calm = live ? calm + 1 : 0
    if (calm >= 2) return now
    prev = now
  }
  throw new Error(`the service did not reach live in 900 s: ${JSON.stringify(prev)}`)
}

/** CPU time (user + system) of a process and its threads over `seconds`, as a share of one core. */
/** The service's /metrics as samples: `name{labels}` to value. */
async function scrape(base: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    const m = /^(svc_(?:engine_statements_total|engine_seconds_total|batches_total)\{[^}]*\}) (\S+)$/.exec(line)
    if (m) out.set(m[1]!, Number(m[2]))
  }
  return out
}

/** Statements and engine time per batch of one consumer between two scrapes, by step. */
function livePerBatch(before: Map<string, number>, after: Map<string, number>, consumer: string): { batches: number; text: string } {
  const delta = (k: string) => (after.get(k) ?? 0) - (before.get(k) ?? 0)
  const batches = delta(`svc_batches_total{consumer="${consumer}",outcome="ok"}`)
  const steps = new Map<string, { statements: number; seconds: number }>()
  for (const k of after.keys()) {
    const m = new RegExp(`^svc_engine_(statements|seconds)_total\\{consumer="${consumer}",step="([^"]*)"\\}$`).exec(k)
    if (!m) continue
    const s = steps.get(m[2]!) ?? { statements: 0, seconds: 0 }
    if (m[1] === 'statements') s.statements = delta(k)
    else s.seconds = delta(k)
    steps.set(m[2]!, s)
  }
  if (batches <= 0) return { batches, text: 'no batch' }
  const parts = [...steps].filter(([, v]) => v.statements > 0).sort((a, b) => b[1].seconds - a[1].seconds)
  const total = parts.reduce((t, [, v]) => ({ statements: t.statements + v.statements, seconds: t.seconds + v.seconds }), { statements: 0, seconds: 0 })
  const fmt = (v: { statements: number; seconds: number }) => `${(v.statements / batches).toFixed(1)} statements, ${Math.round((v.seconds / batches) * 1000)} ms`
  return { batches, text: `${fmt(total)} in all; ${parts.map(([step, v]) => `${step} ${fmt(v)}`).join('; ')}` }
}

type WaitBuckets = Map<string, Array<{ le: number; n: number }>>

/** The wait histogram's cumulative buckets per class, from a /metrics text (labels in any order). */
export function waitBuckets(metricsText: string): WaitBuckets {
  const buckets: WaitBuckets = new Map()
  for (const m of metricsText.matchAll(/^svc_engine_wait_seconds_bucket\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]))
    const list = buckets.get(labels.class!) ?? []
    list.push({ le: labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(labels.le), n: Number(m[2]) })
    buckets.set(labels.class!, list)
  }
  for (const list of buckets.values()) list.sort((a, b) => a.le - b.le)
  return buckets
}

/** What was observed between two readings of the histogram. */
export function waitsBetween(before: WaitBuckets, after: WaitBuckets): WaitBuckets {
  const out: WaitBuckets = new Map()
  for (const [cls, list] of after) {
    const was = new Map((before.get(cls) ?? []).map((b) => [b.le, b.n]))
    out.set(cls, list.map((b) => ({ le: b.le, n: b.n - (was.get(b.le) ?? 0) })))
  }
  return out
}

/**
 * Count and p50/p99 per class (the upper bound of the bucket the quantile falls in, a bound
 * rather than an estimate).
 */
export function formatWaits(buckets: WaitBuckets): string {
  const measured = [...buckets].filter(([, list]) => (list.at(-1)?.n ?? 0) > 0)
  if (measured.length === 0) return 'not measured (the engine reports no summary)'
  const bound = (list: Array<{ le: number; n: number }>, q: number) => {
    const le = list.find((b) => b.n >= q * list.at(-1)!.n)!.le
    return le === Number.POSITIVE_INFINITY ? '> 30 s' : `<= ${le * 1000} ms`
  }
  return measured.map(([cls, list]) => `${cls} ${list.at(-1)!.n} queries, p50 ${bound(list, 0.5)}, p99 ${bound(list, 0.99)}`).join('; ')
}

/** The wait histogram of a /metrics text, formatted. */
export const engineWaits = (metricsText: string) => formatWaits(waitBuckets(metricsText))

/** The process and every process under it (the engine svc start runs as its child included). */
function processTree(root: number): number[] {
  const parentOf = new Map<number, number>()
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      parentOf.set(Number(d), Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]))
    } catch {
      // gone meanwhile
    }
  }
  const tree = [root]
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parentOf) if (ppid === tree[i]) tree.push(pid)
  return tree
}

/** CPU share of the service's whole process tree over `seconds` (user + system time). */
async function idleCpuShare(pid: number, seconds: number): Promise<number> {
  const pids = processTree(pid)
  const ticks = () =>
    pids.reduce((sum, p) => {
      try {
        const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')
        return sum + Number(fields[11]) + Number(fields[12])
      } catch {
        return sum
      }
    }, 0)
  const t0 = ticks()
  await new Promise((r) => setTimeout(r, seconds * 1000))
  // Linux reports in clock ticks of 1/100 s.
  return (ticks() - t0) / 100 / seconds
}

function runDriver(planFile: string): Promise<LoadReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'load-driver.ts'), planFile], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as LoadReport) : reject(new Error(`load driver exited with ${code}`))))
  })
}
