import { readdirSync, readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort, startSvcServer, type SvcServer } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * `svc start` runs the engine on DATA_DIR as its own child process (EMBEDDED_ENGINE=process, the
 * default): statements run side by side, so a long analyst query leaves /health and API reads
 * answering at once; the engine stops with the service. EMBEDDED_ENGINE=in-process runs none.
 */
const ADMIN = 'embedded-engine-admin-token-01'
const dirs: Array<ReturnType<typeof tempDir>> = []
const running: SvcServer[] = []

afterAll(async () => {
  for (const s of running) await s.stop()
  for (const d of dirs) d.cleanup()
})

/** The command lines of every process under `root`. */
function descendants(root: number): string[] {
  const procs = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    try {
      const ppid = Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])
      return [{ pid: Number(d), ppid, cmd: readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ') }]
    } catch {
      return []
    }
  })
  const tree = [root]
  for (let i = 0; i < tree.length; i++) for (const p of procs) if (p.ppid === tree[i]) tree.push(p.pid)
  return procs.filter((p) => tree.includes(p.pid) && p.pid !== root).map((p) => p.cmd)
}

async function start(extra: Record<string, string>): Promise<SvcServer> {
  const dir = tempDir('svc-engine-mode-')
  dirs.push(dir)
  const env = { DATA_DIR: dir.path, SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', SIMULATOR: 'off', KAFKA_BROKERS: '', REDIS_URL: '', ...extra }
  const svc = await startSvcServer(['start'], await freePort(), env, 120_000)
  running.push(svc)
  return svc
}

describe('the embedded engine', () => {
  it('runs as a child process of svc start: a 6 s analyst query leaves /health and API reads answering at once, and the engine stops with the service', { timeout: 180_000 }, async () => {
    const svc = await start({})
    expect(descendants(svc.child.pid!).some((c) => c.includes('svc-clickhouse-engine'))).toBe(true)
    const issued = await fetch(`${svc.base}/admin/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ plan: 'analyst' }) })
    const { key } = (await issued.json()) as { key: string }
    const long = fetch(`${svc.base}/clickhouse?query=${encodeURIComponent('SELECT sum(sleepEachRow(0.5)) FROM numbers(12)')}&max_block_size=1`, { headers: { 'x-clickhouse-key': key } })
    await new Promise((r) => setTimeout(r, 1000))
    const times: number[] = []
    for (let i = 0; i < 10; i++) {
      const t0 = Date.now()
      const health = await fetch(`${svc.base}/health`)
      const stats = await fetch(`${svc.base}/stats`)
      times.push(Date.now() - t0)
      expect([health.status, stats.status]).toEqual([200, 200])
    }
    const answer = await long
    expect(answer.status, await answer.clone().text()).toBe(200)
    expect((await answer.text()).trim()).toBe('0')
    // Every read answered while the analyst's statement ran (it held the engine for 6 s).
    expect(Math.max(...times)).toBeLessThan(1000)

    await svc.stop()
    running.splice(running.indexOf(svc), 1)
    await new Promise((r) => setTimeout(r, 500))
    const engines = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(dirs.at(-1)!.path)
      } catch {
        return false
      }
    })
    expect(engines).toEqual([])
  })

  it('EMBEDDED_ENGINE=in-process runs chDB inside the service, no child engine', { timeout: 120_000 }, async () => {
    const svc = await start({ EMBEDDED_ENGINE: 'in-process' })
    expect((await fetch(`${svc.base}/health`)).status).toBe(200)
    expect(descendants(svc.child.pid!).some((c) => c.includes('svc-clickhouse-engine'))).toBe(false)
  })
})
