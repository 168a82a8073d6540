import { readdirSync, readFileSync } from 'node:fs'

/**
 * Reading a running service from outside, as the load and pipeline benches do: when it is live,
 * its own /metrics (statements and engine time by step, batch durations, the engine wait
 * histogram) and the CPU its whole process tree uses.
 */

/**
 * Wait until the default world is served live, read from /metrics: every chain (both backfills
 * are in: the 5042 simulator starts once 4663 is live) by the last served block's age
 * (svc_served_block_age_seconds by chain) within the live pace, and the Solana venue, which `svc
 * start` begins a minute after chain 4663 is live, by its history published
 * (svc_sim_behind_seconds{source="solana"}) and consumed (svc_bus_lag_messages of its trades'
 * consumer): until then its catch-up runs beside whatever is measured. Answers
 * svc_measured_through_block by chain; `onLive` hears each chain, then `solana`, once, when first
 * seen live.
 */
export async function waitLive(base: string, onLive?: (what: string, atMs: number) => void): Promise<Record<string, number | null>> {
  const read = async () => {
    const text = await (await fetch(`${base}/metrics`)).text()
    const gauge = (name: string, label: string, value = '\\d+') => Object.fromEntries([...text.matchAll(new RegExp(`^${name}\\{${label}="(${value})"\\} (\\S+)$`, 'gm'))].map((m) => [m[1]!, Number(m[2])]))
    const behind = gauge('svc_sim_behind_seconds', 'source', 'solana').solana
    const lag = gauge('svc_bus_lag_messages', 'consumer', 'solana-trades')['solana-trades']
    return { through: gauge('svc_measured_through_block', 'chain'), age: gauge('svc_served_block_age_seconds', 'chain'), venueLive: behind !== undefined && behind <= LIVE_VENUE_BEHIND_SECONDS && (lag ?? 0) <= LIVE_VENUE_LAG_MESSAGES }
  }
  const deadline = Date.now() + 900_000
  const told = new Set<string>()
  const tell = (what: string) => {
    told.add(what)
    onLive?.(what, Date.now())
  }
  for (let now = await read(); Date.now() < deadline; now = await read()) {
    // Live: the last served block is as recent as the chain's pace allows (a block every 2 s;
    // chain 5042 batches by time, every 4 s), so the backfill is behind it.
    for (const c of Object.keys(now.through)) if (!told.has(c) && now.age[c] !== undefined && now.age[c]! <= LIVE_BLOCK_AGE_SECONDS) tell(c)
    if (!told.has('solana') && now.venueLive) tell('solana')
    const chains = Object.keys(now.through)
    if (chains.length >= 2 && chains.every((c) => told.has(c)) && told.has('solana')) return now.through
    await new Promise((r) => setTimeout(r, 500))
  }
  throw new Error(`the service did not reach live in 900 s (live so far: ${[...told].join(', ') || 'nothing'})`)
}

/** The most seconds of history a live venue still has to publish (its trades come about 1.7 a second). */
const LIVE_VENUE_BEHIND_SECONDS = 30

/**
 * The most trades published and not yet consumed that a live venue shows: its trades wait for
 * their 5-minute candle (about 500 at 1.7 a second); a tick of its catch-up publishes 2,000.
 */
const LIVE_VENUE_LAG_MESSAGES = 1_000

/** The most seconds since its last served block's timestamp that a live chain shows. */
const LIVE_BLOCK_AGE_SECONDS = 12

/** The service's /metrics as samples: `name{labels}` to value. */
export async function scrape(base: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    const m = /^(svc_(?:engine_statements_total|engine_seconds_total|batches_total|batch_duration_seconds_(?:sum|count|bucket))\{[^}]*\}) (\S+)$/.exec(line)
    if (m) out.set(m[1]!, Number(m[2]))
  }
  return out
}

/**
 * One consumer's batches between two scrapes: how many, their mean duration and the upper bound of
 * the histogram bucket their p99 falls in (svc_batch_duration_seconds), and statements and engine
 * time per batch by step.
 */
export function livePerBatch(before: Map<string, number>, after: Map<string, number>, consumer: string): { batches: number; meanMs: number; p99BoundMs: number; text: string } {
  const delta = (k: string) => (after.get(k) ?? 0) - (before.get(k) ?? 0)
  const batches = delta(`svc_batches_total{consumer="${consumer}",outcome="ok"}`)
  const timed = delta(`svc_batch_duration_seconds_count{consumer="${consumer}"}`)
  const meanMs = timed > 0 ? Math.round((delta(`svc_batch_duration_seconds_sum{consumer="${consumer}"}`) / timed) * 1000) : 0
  const buckets: Array<{ le: number; n: number }> = []
  for (const k of after.keys()) {
    const m = /^svc_batch_duration_seconds_bucket\{(.*)\}$/.exec(k)
    const labels = m ? labelsOf(m[1]!) : {}
    if (labels.consumer === consumer) buckets.push({ le: labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(labels.le), n: delta(k) })
  }
  buckets.sort((a, b) => a.le - b.le)
  const p99 = buckets.find((b) => b.n >= 0.99 * timed)?.le ?? Number.POSITIVE_INFINITY
  const steps = new Map<string, { statements: number; seconds: number }>()
  for (const k of after.keys()) {
    const m = new RegExp(`^svc_engine_(statements|seconds)_total\\{consumer="${consumer}",step="([^"]*)"\\}$`).exec(k)
    if (!m) continue
    const s = steps.get(m[2]!) ?? { statements: 0, seconds: 0 }
    if (m[1] === 'statements') s.statements = delta(k)
    else s.seconds = delta(k)
    steps.set(m[2]!, s)
  }
  const p99BoundMs = Math.round(p99 * 1000)
  if (batches <= 0) return { batches, meanMs, p99BoundMs, text: 'no batch' }
  const parts = [...steps].filter(([, v]) => v.statements > 0).sort((a, b) => b[1].seconds - a[1].seconds)
  const total = parts.reduce((t, [, v]) => ({ statements: t.statements + v.statements, seconds: t.seconds + v.seconds }), { statements: 0, seconds: 0 })
  const fmt = (v: { statements: number; seconds: number }) => `${(v.statements / batches).toFixed(1)} statements, ${Math.round((v.seconds / batches) * 1000)} ms`
  return { batches, meanMs, p99BoundMs, text: `${fmt(total)} in all; ${parts.map(([step, v]) => `${step} ${fmt(v)}`).join('; ')}` }
}

/** Statements and engine time per second by consumer between two scrapes `seconds` apart, the busiest first. */
export function engineByConsumer(before: Map<string, number>, after: Map<string, number>, seconds: number): string {
  const by = new Map<string, { statements: number; seconds: number }>()
  for (const [k, v] of after) {
    const m = /^svc_engine_(statements|seconds)_total\{consumer="([^"]*)",step="[^"]*"\}$/.exec(k)
    if (!m) continue
    const c = by.get(m[2]!) ?? { statements: 0, seconds: 0 }
    if (m[1] === 'statements') c.statements += v - (before.get(k) ?? 0)
    else c.seconds += v - (before.get(k) ?? 0)
    by.set(m[2]!, c)
  }
  return [...by].filter(([, c]) => c.statements > 0).sort((a, b) => b[1].seconds - a[1].seconds)
    .map(([consumer, c]) => `${consumer} ${(c.statements / seconds).toFixed(1)} statements/s, ${Math.round((c.seconds / seconds) * 1000)} ms/s`).join('; ')
}

/** A sample's labels (`a="x",b="y"`) by name: prom-client writes a histogram's `le` first. */
const labelsOf = (text: string): Record<string, string> => Object.fromEntries([...text.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]))

export type WaitBuckets = Map<string, Array<{ le: number; n: number }>>

/**
 * A histogram's cumulative buckets per value of one label, from a /metrics text (labels in any
 * order): by default the engine wait's, per class.
 */
export function waitBuckets(metricsText: string, metric = 'svc_engine_wait_seconds', by = 'class'): WaitBuckets {
  const buckets: WaitBuckets = new Map()
  for (const m of metricsText.matchAll(new RegExp(`^${metric}_bucket\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    const labels = labelsOf(m[1]!)
    const list = buckets.get(labels[by]!) ?? []
    list.push({ le: labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(labels.le), n: Number(m[2]) })
    buckets.set(labels[by]!, list)
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
export function formatWaits(buckets: WaitBuckets, what = 'queries', none = 'not measured (the engine reports no summary)'): string {
  const measured = [...buckets].filter(([, list]) => (list.at(-1)?.n ?? 0) > 0)
  if (measured.length === 0) return none
  const bound = (list: Array<{ le: number; n: number }>, q: number) => {
    const le = list.find((b) => b.n >= q * list.at(-1)!.n)!.le
    const last = list.at(-2)?.le ?? 0
    return le === Number.POSITIVE_INFINITY ? `> ${last >= 1 ? `${last} s` : `${last * 1000} ms`}` : `<= ${Number((le * 1000).toPrecision(6))} ms`
  }
  return measured.map(([key, list]) => `${key} ${list.at(-1)!.n} ${what}, p50 ${bound(list, 0.5)}, p99 ${bound(list, 0.99)}`).join('; ')
}

/** A counter's values per value of one label, from a /metrics text, where its other labels match `where`. */
export function counterBy(metricsText: string, metric: string, by: string, where: Record<string, string> = {}): Map<string, number> {
  const out = new Map<string, number>()
  // Greedy to the last brace: a path label has braces of its own (`/verdict/{token}`).
  for (const m of metricsText.matchAll(new RegExp(`^${metric}\\{(.*)\\} (\\S+)$`, 'gm'))) {
    const labels = labelsOf(m[1]!)
    if (Object.entries(where).some(([k, v]) => labels[k] !== v)) continue
    out.set(labels[by]!, (out.get(labels[by]!) ?? 0) + Number(m[2]))
  }
  return out
}

/**
 * The API's engine statements between two /metrics texts, by path (svc_engine_statements_total
 * and svc_engine_seconds_total of consumer api), most first: what still reaches the engine.
 */
export function apiStatementsBetween(before: string, after: string): string {
  const counts = (text: string) => counterBy(text, 'svc_engine_statements_total', 'step', { consumer: 'api' })
  const seconds = (text: string) => counterBy(text, 'svc_engine_seconds_total', 'step', { consumer: 'api' })
  const [n0, n1, s0, s1] = [counts(before), counts(after), seconds(before), seconds(after)]
  const rows = [...n1].map(([step, n]) => ({ step, n: n - (n0.get(step) ?? 0), s: (s1.get(step) ?? 0) - (s0.get(step) ?? 0) })).filter((r) => r.n > 0)
  if (rows.length === 0) return 'none'
  return rows.sort((a, b) => b.n - a.n).map((r) => `${r.step} ${r.n} (${Math.round((r.s * 1000) / r.n)} ms each)`).join(', ')
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

/** A process's CPU time so far, in clock ticks of 1/100 s (user + system); 0 once it is gone. */
function cpuTicks(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}

/** What a process under the service's is, by its command line. */
function roleOf(pid: number): string {
  let cmd = ''
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return 'gone'
  }
  if (cmd.includes('svc-clickhouse-engine')) return 'engine'
  if (cmd.includes('api-process')) return 'api'
  if (cmd.includes('hardhat')) return 'payments chain'
  if (cmd.includes('esbuild')) return 'esbuild'
  return 'other'
}

/**
 * CPU share of the service's whole process tree over `seconds` (user + system time), and each
 * process's share by role, largest first: `pipeline` is the `svc start` process itself (the
 * pipeline, the simulators, the alerts and scans), then `engine`, `api`, `payments chain`.
 */
export async function cpuShareByProcess(pid: number, seconds: number): Promise<{ total: number; byRole: Array<{ role: string; share: number }> }> {
  const pids = processTree(pid)
  const before = pids.map(cpuTicks)
  await new Promise((r) => setTimeout(r, seconds * 1000))
  const byRole = new Map<string, number>()
  pids.forEach((p, i) => {
    const role = p === pid ? 'pipeline' : roleOf(p)
    byRole.set(role, (byRole.get(role) ?? 0) + (cpuTicks(p) - before[i]!) / 100 / seconds)
  })
  const shares = [...byRole].map(([role, share]) => ({ role, share })).sort((a, b) => b.share - a.share)
  return { total: shares.reduce((s, r) => s + r.share, 0), byRole: shares }
}

/** CPU share of the service's whole process tree over `seconds` (user + system time). */
export async function idleCpuShare(pid: number, seconds: number): Promise<number> {
  return (await cpuShareByProcess(pid, seconds)).total
}

