import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort, startSvcServer, type SvcServer } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'
import { until } from '../setup/until.ts'
import { SERVICE_NODE_FLAGS } from '../../bin/node-flags.ts'

/**
 * `svc start` serves its API from a process of its own (bin/api-process.ts), linked to the
 * pipeline's by the IPC channel. Real processes: the served advance reaches the API process, its
 * /metrics are both processes' as one exposition, it publishes through the pipeline's bus, and
 * neither process outlives the other.
 */

const ADMIN = 'api-process-admin-token-0123'
const dirs: Array<{ cleanup(): void }> = []
const running: SvcServer[] = []
afterAll(async () => {
  for (const s of running) await s.stop()
  for (const d of dirs) d.cleanup()
})

/** The pids of `pid`'s children whose command line contains `marker`. */
function childrenOf(pid: number, marker: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function startService(extraEnv: Record<string, string> = {}): Promise<{ svc: SvcServer; apiPid: number }> {
  const dir = tempDir()
  dirs.push(dir)
  const env = { DATA_DIR: dir.path, SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', SIMULATOR_BACKFILL_BLOCKS: '300', X402_LOCAL_CHAIN: 'off', KAFKA_BROKERS: '', REDIS_URL: '', SOLANA_SIM_TRADES_PER_SECOND: '0', ...extraEnv }
  const svc = await startSvcServer(['start'], await freePort(), env, 180_000)
  running.push(svc)
  const [apiPid] = childrenOf(svc.child.pid!, 'api-process')
  expect(apiPid, 'svc start forks its API process').toBeDefined()
  // With the service's V8 flags (bin/node-flags.ts), as every service process.
  const argv = readFileSync(`/proc/${apiPid}/cmdline`, 'utf8').split('\0')
  for (const flag of SERVICE_NODE_FLAGS) expect(argv).toContain(flag)
  return { svc, apiPid: apiPid! }
}

type Health = { status: string; measured_through_block: Record<string, number | null>; faults?: Array<{ component: string; error_class: string }> }
const health = async (base: string) => (await (await fetch(`${base}/health`)).json()) as Health

describe('svc start runs its API in a process of its own', () => {
  it('the API process hears every served batch, exposes both processes metrics once, and publishes through the pipeline bus', { timeout: 300_000 }, async () => {
    const { svc } = await startService()
    // Live blocks arrive every 2 s: the API process learns of each from the pipeline process.
    const first = (await health(svc.base)).measured_through_block['4663']!
    await until('a served block after the first seen', async () => (((await health(svc.base)).measured_through_block['4663'] ?? 0) > first ? true : undefined))

    const text = await (await fetch(`${svc.base}/metrics`)).text()
    // The pipeline's batches (counted in the pipeline process) beside the API's requests.
    expect(text).toMatch(/^svc_batches_total\{consumer="chain-4663",outcome="ok"\} [1-9]/m)
    expect(text).toMatch(/^svc_http_requests_total\{[^}]*route="\/health"[^}]*\} [1-9]/m)
    // One exposition: each metric declared once.
    const helps = [...text.matchAll(/^# HELP (\S+)/gm)].map((m) => m[1])
    expect(new Set(helps).size).toBe(helps.length)

    // A roster claim published by the API process is consumed by the pipeline's claims processor.
    const wallet = `0x${'ab'.repeat(20)}`
    const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
    const claim = { source: 'api-process-test', wallet, rank: 1, claimed_pnl_usd_30d: 1, claimed_at: '2026-11-01T00:00:00Z' }
    const claimed = await fetch(`${svc.base}/admin/leaderboard-claims`, { method: 'POST', headers: admin, body: JSON.stringify({ claims: [claim] }) })
    expect(claimed.status, await claimed.clone().text()).toBe(200)
    await until('the claim ingested by the pipeline process', async () => {
      const r = await fetch(`${svc.base}/admin/sql`, { method: 'POST', headers: admin, body: JSON.stringify({ query: `SELECT count() AS n FROM leaderboard_claims WHERE wallet = '${wallet}'` }) })
      // A busy engine may answer 503 for a moment: asked again.
      if (r.status !== 200) return undefined
      return Number(((await r.json()) as { rows: Array<{ n: string | number }> }).rows[0]?.n ?? 0) > 0 ? true : undefined
    })
  })

  it('an API process that dies stops the service with an error; a killed service leaves no API process behind', { timeout: 300_000 }, async () => {
    const a = await startService()
    process.kill(a.apiPid, 'SIGKILL')
    const exit = await new Promise<number | null>((resolve) => a.svc.child.once('exit', (code) => resolve(code)))
    expect(exit).toBe(1)

    const b = await startService()
    b.svc.child.kill('SIGKILL')
    await until('the API process gone with its pipeline process', () => (alive(b.apiPid) ? undefined : true))
    await expect(fetch(`${b.svc.base}/health`)).rejects.toThrow()
  })

  it("the API process's /health names a fault the pipeline process is retrying, and clears it", { timeout: 300_000 }, async () => {
    // The pipeline process runs out of file descriptors for 15 s at its first insert once the
    // marker file exists (bin/fault-hooks.ts), made once the service is up and watched; the API
    // process, whose descriptors are its own, answers meanwhile. (15 s, not 6: on a slow machine
    // one /health answer, which asks the pipeline process over the channel, took seconds.)
    const marker = tempDir()
    dirs.push(marker)
    const trigger = join(marker.path, 'exhaust-now')
    const { svc } = await startService({ SVC_FAULT: `exhaust-fds-on-file:${trigger}:15000` })
    writeFileSync(trigger, '')
    // Whichever of the pipeline process's parts meets it first: a chain's consumer, a simulator,
    // another consumer (on a slow machine chain 4663's consumer may be inside one statement for
    // the whole window, and chain 5042's meets it instead); a loaded machine may show other faults beside
    // it: engine timeouts. The API process's own parts have their descriptors: none of them is named.
    const exhausted = (h: Health) => h.faults?.some((f) => f.error_class === 'fd_exhausted')
    const degraded = await until('/health naming the pipeline process out of descriptors', async () => {
      const h = await health(svc.base)
      return exhausted(h) ? h : undefined
    }, 180_000)
    expect(degraded.status).toBe('degraded')
    await until('the fault cleared in /health', async () => (exhausted(await health(svc.base)) ? undefined : true), 120_000)
  })
})
