import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMetrics } from '../../core/metrics.ts'

const dashboard = JSON.parse(readFileSync(join(import.meta.dirname, '../../infra/grafana/svc-dashboard.json'), 'utf8')) as {
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>
  templating: { list: Array<{ query?: string }> }
}

/** Series names a PromQL expression reads (svc_ metrics; histogram suffixes kept). */
function seriesIn(expr: string): string[] {
  return [...expr.matchAll(/\bsvc_[a-z0-9_]+/g)].map((m) => m[0])
}

describe('infra/grafana/svc-dashboard.json', () => {
  it('queries only metrics a process exports, and shows process, route, consumer, lag, cache and x402 metrics', async () => {
    const metrics = createMetrics()
    // What one scrape exposes: every series name in the text format (histograms as _bucket/_sum/_count).
    metrics.httpRequests.record('/x', 200, 0.01)
    const text = await metrics.render()
    const exported = new Set([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) => (type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name!])))
    const queried = [...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)), ...dashboard.templating.list.map((v) => v.query ?? '')].flatMap(seriesIn)
    expect(queried.length).toBeGreaterThan(20)
    expect([...new Set(queried)].filter((name) => !exported.has(name))).toEqual([])
    for (const wanted of [
      'svc_nodejs_eventloop_lag_p99_seconds', 'svc_nodejs_heap_size_used_bytes', 'svc_nodejs_gc_duration_seconds_sum', 'svc_nodejs_active_handles',
      'svc_http_request_duration_seconds_bucket', 'svc_consumer_step_duration_seconds_bucket', 'svc_ingest_lag_blocks', 'svc_cache_lookups_total', 'svc_x402_payments_total',
    ]) expect(queried, wanted).toContain(wanted)
  })

  it('the registry counts with labels, reads back, and renders cache lookups counted anywhere in the process', async () => {
    const { countCacheLookup } = await import('../../core/metrics.ts')
    const metrics = createMetrics({ processMetrics: false })
    metrics.x402.inc({ step: 'verify', outcome: 'valid' })
    metrics.x402.inc({ step: 'verify', outcome: 'valid' })
    metrics.stepDuration.observe({ consumer: 'c', step: 's' }, 0.5)
    metrics.stepDuration.observe({ consumer: 'c', step: 's' }, 0.25)
    countCacheLookup('unit_test_cache', true, 3)
    countCacheLookup('unit_test_cache', false)
    expect(await metrics.x402.get({ step: 'verify', outcome: 'valid' })).toBe(2)
    expect(await metrics.x402.get({ step: 'settle', outcome: 'settled' })).toBe(0)
    expect(await metrics.stepDuration.totals({ consumer: 'c', step: 's' })).toEqual({ sum: 0.75, count: 2 })
    const text = await metrics.render()
    expect(text).toContain('svc_cache_lookups_total{cache="unit_test_cache",result="hit"} 3')
    expect(text).toContain('svc_cache_lookups_total{cache="unit_test_cache",result="miss"} 1')
    expect(text).not.toContain('svc_nodejs_')
  })
})
