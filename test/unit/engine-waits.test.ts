import { describe, expect, it } from 'vitest'
import { apiStatementsBetween, engineWaits, formatWaits, waitBuckets, waitsBetween } from '../../bench/live-service.ts'
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

describe('the long-poll bench reads the service side of its answers', () => {
  it('per route, from svc_long_poll_answer_seconds, with its own last bound', async () => {
    const m = createMetrics({ processMetrics: false })
    for (let i = 0; i < 98; i++) m.longPollAnswer.observe({ route: '/feed/new' }, 0.06)
    m.longPollAnswer.observe({ route: '/feed/new' }, 0.14)
    m.longPollAnswer.observe({ route: '/feed/new' }, 0.14)
    m.longPollAnswer.observe({ route: '/signals/calls' }, 9)
    const text = await m.registry.metrics()
    expect(formatWaits(waitBuckets(text, 'svc_long_poll_answer_seconds', 'route'), 'answers')).toBe(
      '/feed/new 100 answers, p50 <= 75 ms, p99 <= 150 ms; /signals/calls 1 answers, p50 > 2.5 s, p99 > 2.5 s',
    )
    // The engine's wait histogram is not read as the long poll's, nor the other way round.
    expect(formatWaits(waitBuckets(text), 'queries', 'none')).toBe('none')
  })
})

describe("the load bench reads what the API's requests sent to the engine during the mix", () => {
  it('by path, counted between two readings, the API consumer only, most first, with the mean time each', async () => {
    const m = createMetrics({ processMetrics: false })
    const sent = (consumer: string, step: string, n: number, seconds: number) => {
      m.engineStatements.inc({ consumer, step }, n)
      m.engineSeconds.inc({ consumer, step }, seconds)
    }
    sent('api', '/verdict/{token}', 2, 0.1)
    const before = await m.registry.metrics()
    expect(apiStatementsBetween(before, before)).toBe('none')
    sent('api', '/verdict/{token}', 4, 0.2)
    sent('api', '/feed/new', 6, 0.06)
    sent('pipeline', 'fifo', 50, 5)
    expect(apiStatementsBetween(before, await m.registry.metrics())).toBe('/feed/new 6 (10 ms each), /verdict/{token} 4 (50 ms each)')
  })
})
