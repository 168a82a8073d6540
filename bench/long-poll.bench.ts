import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, startSvcServer } from '../test/setup/svc-process.ts'
import type { Answer, LongPollPlan, LongPollReport } from './long-poll-driver.ts'
import type { BenchResult } from './result.ts'
import { runDriverProcess } from './driver-process.ts'
import { formatWaits, idleCpuShare, waitBuckets, waitLive } from './live-service.ts'

const ADMIN = 'bench-admin-token-0123456789abcdef'
const POLLERS = Number(process.env.LONG_POLL_POLLERS ?? 1000)
/** Seconds the pollers wait: the default world launches about one token every 40 s. */
const SECONDS = Number(process.env.LONG_POLL_SECONDS ?? 180)
/** Driver processes the pollers are spread over: one client process would stamp the last of a thousand answers late itself. */
const PROCESSES = Number(process.env.LONG_POLL_PROCESSES ?? 4)
/** Seconds of the idle reading without pollers (the baseline of the pollers' cost). */
const IDLE_SECONDS = 30

/**
 * The long-poll bench (`npm run bench -- long-poll`): `svc start` on the default world as its own
 * process, both chains live; then, from separate processes (bench/long-poll-driver.ts, four), 1,000
 * callers each hold `GET /feed/new?since=<head>&wait=30` and follow next_since, beside one plain
 * poller asking once a second (the baseline). Printed:
 *  - how long after the batch that served a launch committed each answer carrying it arrived
 *    (the commit's time is the service's own 'batch inserted' log line, written when the
 *    watermark moves), for the long polls and for the plain poller; and beside it the service's
 *    own measure, commit to answer written (svc_long_poll_answer_seconds), which the clients'
 *    reading on the same two cores does not delay;
 *  - what the waiting pollers cost: the CPU share of the service's process tree while they wait,
 *    against the same service idle without them, read before and after them.
 */
export async function benchLongPoll(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-long-poll-'))
  // The pollers all come from this host: its connection cap per address (64) is raised to the
  // total cap (4,000), as if they came from as many addresses (a re-poll may open a connection
  // before the client has let go of its last one).
  const env = { DATA_DIR: join(dir, 'data'), SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info', HTTP_MAX_CONNECTIONS_PER_IP: '4000' }
  const svc = await startSvcServer(['start'], await freePort(), env, 600_000)
  // Batch commits of chain 4663: [unix ms, block served through], from the service's log.
  const commits: Array<[number, number]> = []
  let partial = ''
  svc.child.stdout!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n')
    partial = lines.pop()!
    for (const line of lines) {
      if (!line.includes('"batch inserted"') || !line.includes('"chain-4663"')) continue
      const r = JSON.parse(line) as { time: number; through: number }
      commits.push([r.time, r.through])
    }
  })
  try {
    const base = svc.base
    await waitLive(base)
    const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
    const key = ((await (await fetch(`${base}/admin/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ plan: 'desk' }) })).json()) as { key: string }).key
    const idleBefore = await idleCpuShare(svc.child.pid!, IDLE_SECONDS)

    const driving = Promise.all(
      Array.from({ length: PROCESSES }, (_, i) => {
        const plan: LongPollPlan = { base, key, pollers: Math.ceil(POLLERS / PROCESSES), seconds: SECONDS, plain: i === 0 }
        const planFile = join(dir, `plan-${i}.json`)
        writeFileSync(planFile, JSON.stringify(plan))
        return runDriver(planFile)
      }),
    ).then(merged)
    // The reading starts once every poller has sent its first request and waits.
    await new Promise((r) => setTimeout(r, 5_000))
    const held = await idleCpuShare(svc.child.pid!, SECONDS - 10)
    const report = await driving
    // Idle again once they are gone: the baseline is the mean of the readings around them.
    const idle = (idleBefore + (await idleCpuShare(svc.child.pid!, IDLE_SECONDS))) / 2

    // The service's own side: from the commit to each woken answer written to its socket.
    const written = formatWaits(waitBuckets(await (await fetch(`${base}/metrics`)).text(), 'svc_long_poll_answer_seconds', 'route'), 'answers', 'no woken answer')
    const heldDelays = delaysAfterCommit(report.held, commits)
    const plainDelays = delaysAfterCommit(report.plain, commits)
    const launches = new Set(report.plain.concat(report.held).flatMap((a) => a.blocks)).size
    const statuses = Object.entries(report.statuses).map(([code, s]) => `${s.n} x ${code} (${s.body})`).join(', ')
    const counts = `${report.requests} requests, ${report.non2xx} non-2xx${statuses ? `: ${statuses}` : ''}, ${report.errors} errors; ${launches} launch blocks in ${SECONDS} s`
    return [
      {
        name: `long poll: /feed/new with wait=30 answers ${fmtDelays(heldDelays)} after the batch that served the launch committed (${POLLERS} pollers, from ${PROCESSES} separate processes)`,
        baseline: 'one plain poller asking once a second, same run',
        ours: { value: quantile(heldDelays, 0.99), unit: 'ms, p99, batch commit to answer' },
        base: { value: quantile(plainDelays, 0.99), unit: `ms, p99 of the plain poller (${fmtDelays(plainDelays)})` },
        ratio: quantile(plainDelays, 0.99) / Math.max(1, quantile(heldDelays, 0.99)),
        notes: `${counts}; written by the service (svc_long_poll_answer_seconds, commit to socket): ${written}`,
      },
      {
        name: `long poll: ${POLLERS} pollers waiting at the head cost the service ${((held - idle) * 100).toFixed(1)}% of a core (${(held * 100).toFixed(1)}% with them, ${(idle * 100).toFixed(1)}% idle without)`,
        baseline: 'the same service idle without pollers, before and after',
        ours: { value: Math.round(held * 1000) / 10, unit: `% of a core with ${POLLERS} pollers waiting (process tree, engine included, over ${SECONDS - 10} s)` },
        base: { value: Math.round(idle * 1000) / 10, unit: `% of a core without them (${IDLE_SECONDS} s before and ${IDLE_SECONDS} s after, mean)` },
        ratio: held / Math.max(0.001, idle),
        notes: counts,
      },
    ]
  } finally {
    await svc.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Per answer: ms from the first commit serving through its newest launch's block to its arrival. */
function delaysAfterCommit(answers: Answer[], commits: Array<[number, number]>): number[] {
  const out: number[] = []
  for (const a of answers) {
    const block = Math.max(...a.blocks)
    const commit = commits.find(([, through]) => through >= block)
    if (commit) out.push(a.at - commit[0])
  }
  return out.sort((x, y) => x - y)
}

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

function fmtDelays(sorted: number[]): string {
  return sorted.length === 0 ? 'no launch in the window' : `p50 ${quantile(sorted, 0.5)} ms, p99 ${quantile(sorted, 0.99)} ms, max ${sorted.at(-1)} ms over ${sorted.length} answers`
}

function merged(reports: LongPollReport[]): LongPollReport {
  const statuses: LongPollReport['statuses'] = {}
  for (const r of reports) for (const [code, s] of Object.entries(r.statuses)) statuses[code] = { n: (statuses[code]?.n ?? 0) + s.n, body: s.body }
  const sum = (f: (r: LongPollReport) => number) => reports.reduce((n, r) => n + f(r), 0)
  return { held: reports.flatMap((r) => r.held), plain: reports.flatMap((r) => r.plain), requests: sum((r) => r.requests), non2xx: sum((r) => r.non2xx), errors: sum((r) => r.errors), statuses }
}

const runDriver = (planFile: string) => runDriverProcess<LongPollReport>('long-poll-driver.ts', planFile)
