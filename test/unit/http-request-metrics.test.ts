import { Counter, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { HttpRequestMetrics } from '../../core/http-request-metrics.ts'

const BOUNDS = [0.001, 0.005, 0.01, 0.1, 1]

/** A text exposition as a set of `name{sorted labels} value` lines (label order is not meaningful). */
function series(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('# HELP'))
    .map((l) => {
      if (l.startsWith('# TYPE')) return l
      const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(l)!
      const labels = (m[2] ?? '').split(/,(?=\w+=")/).filter(Boolean).sort().join(',')
      return `${m[1]}{${labels}} ${m[3]}`
    })
    .sort()
}

describe('HttpRequestMetrics', () => {
  it('exports what prom-client would for the same requests: counts by route and status, latency buckets, sum and count', async () => {
    const ours = new Registry()
    const metrics = new HttpRequestMetrics(ours, BOUNDS)
    const theirs = new Registry()
    const counts = new Counter({ name: 'svc_http_requests_total', help: 'HTTP requests, by route and status', labelNames: ['route', 'status'], registers: [theirs] })
    const latency = new Histogram({ name: 'svc_http_request_duration_seconds', help: 'HTTP request latency, by route', labelNames: ['route'], buckets: BOUNDS, registers: [theirs] })
    const lane = new Counter({ name: 'svc_http_kept_lane_answers_total', help: 'GET answers written by the kept lane, before Fastify (api/kept-lane.ts); svc_http_requests_total counts them too', registers: [theirs] })
    // Values on, just past and beyond the bounds; a route with a quote in it; several statuses.
    const requests: Array<[string, number, number]> = [
      ['/token/{address}', 200, 0.001], ['/token/{address}', 200, 0.0010001], ['/token/{address}', 401, 0.0003],
      ['/token/{address}', 200, 5], ['/feed/new', 200, 0.1], ['/feed/new', 503, 0.25], ['unmatched', 404, 0], ['/a"b\\c', 200, 0.02],
    ]
    for (const [i, [route, status, seconds]] of requests.entries()) {
      // Two of them as the kept lane writes them.
      const byLane = i === 0 || i === 1
      metrics.record(route, status, seconds, byLane)
      counts.inc({ route, status: String(status) })
      latency.observe({ route }, seconds)
      if (byLane) lane.inc()
    }
    expect(series(await ours.metrics())).toEqual(series(await theirs.metrics()))
    expect(metrics.count('/token/{address}')).toBe(4)
    expect(metrics.count('/token/{address}', 401)).toBe(1)
    expect(metrics.count('/nothing')).toBe(0)
    expect(metrics.keptLaneAnswers()).toBe(2)
  })
})
