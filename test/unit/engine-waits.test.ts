import { describe, expect, it } from 'vitest'
import { engineWaits, formatWaits, waitBuckets, waitsBetween } from '../../bench/live-service.ts'
import { createMetrics } from '../../core/metrics.ts'

describe('the load bench reads the engine wait histogram', () => {
  it('per class, from the service own exposition (prom-client writes le first)', async () => {
    const m = createMetrics({ processMetrics: false })
    for (let i = 0; i < 99; i++) m.engineWait.observe({ class: 'api' }, 0.0004)
    m.engineWait.observe({ class: 'api' }, 0.2)
    m.engineWait.observe({ class: 'pipeline' }, 40)
    expect(engineWaits(await m.registry.metrics())).toBe('api 100 queries, p50 <= 1 ms, p99 <= 1 ms; pipeline 1 queries, p50 > 30 s, p99 > 30 s')
  })

  it('says when nothing was measured', () => {
    expect(engineWaits('svc_engine_statements_total{consumer="api",step="x"} 3')).toMatch(/not measured/)
  })
})

describe('the door bench reads what was observed during its analyst query', () => {
  it('subtracts the histogram read before from the one read after, per class', async () => {
    const m = createMetrics({ processMetrics: false })
    for (let i = 0; i < 10; i++) m.engineWait.observe({ class: 'api' }, 2)
    const before = waitBuckets(await m.registry.metrics())
    for (let i = 0; i < 4; i++) m.engineWait.observe({ class: 'api' }, 0.0004)
    m.engineWait.observe({ class: 'pipeline' }, 0.02)
    expect(formatWaits(waitsBetween(before, waitBuckets(await m.registry.metrics())))).toBe(
      'api 4 queries, p50 <= 1 ms, p99 <= 1 ms; pipeline 1 queries, p50 <= 20 ms, p99 <= 20 ms',
    )
  })
})
