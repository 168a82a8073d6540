import { afterAll, describe, expect, it } from 'vitest'
import { startRoleHealth } from '../../bin/role-health.ts'
import type { Runtime } from '../../bin/runtime.ts'
import { loadConfig } from '../../core/config.ts'
import { createLogger } from '../../core/logger.ts'
import { createMetrics } from '../../core/metrics.ts'
import { createMemoryStore } from '../../core/store/memory-store.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import { freshChDB } from '../setup/chdb.ts'
import { freePort } from '../setup/svc-process.ts'

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

describe('startRoleHealth()', () => {
  it('startRoleHealth() answers degraded, naming the component and error class, while a consumer retries an infrastructure fault, and ok once it clears', async () => {
    const db = await freshChDB()
    cleanups.push(() => db.close())
    const port = await freePort()
    const metrics = createMetrics({ processMetrics: false })
    const bus = createMemoryBus()
    const rt: Runtime = { config: loadConfig({ HEALTH_PORT: String(port) }), logger: createLogger('silent', 'test'), metrics, ch: db.ch, bus, store: createMemoryStore(), close: async () => {} }
    const server = (await startRoleHealth(rt, 'pipeline-chain-4663'))!
    cleanups.push(() => new Promise((r) => server.close(r)), () => bus.close())
    const health = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/health`)
      return { status: res.status, body: await res.json() }
    }
    expect(await health()).toEqual({ status: 200, body: { status: 'ok', role: 'pipeline-chain-4663' } })
    const emfile = Object.assign(new Error("EMFILE: too many open files, open '/data/x'"), { code: 'EMFILE', syscall: 'open' })
    metrics.infraFaults.retrying('chain-4663', 'chain-writer', 'fd_exhausted', emfile)
    metrics.infraFaults.retrying('chain-4663', 'chain-writer', 'fd_exhausted', emfile)
    const degraded = await health()
    expect(degraded.status).toBe(200)
    expect(degraded.body).toMatchObject({ status: 'degraded', role: 'pipeline-chain-4663', faults: [{ component: 'chain-4663', at: 'chain-writer', error_class: 'fd_exhausted', retries: 2 }] })
    expect(degraded.body.faults[0].error).toContain('too many open files')
    expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toContain('svc_pipeline_infra_fault_active{component="chain-4663",at="chain-writer",kind="fd_exhausted"} 1')
    metrics.infraFaults.cleared('chain-4663', 'chain-writer')
    expect(await health()).toEqual({ status: 200, body: { status: 'ok', role: 'pipeline-chain-4663' } })
  })
})
