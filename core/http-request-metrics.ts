import type { Registry } from 'prom-client'

/** One route's requests: a count per status and the latency histogram (per bucket, not cumulative). */
interface RouteTally {
  statuses: Map<number, number>
  buckets: Float64Array
  sum: number
  count: number
}

type Value = { labels: Record<string, string | number>; value: number; metricName?: string }

/**
 * `svc_http_requests_total{route,status}` and `svc_http_request_duration_seconds{route}`, counted
 * in plain numbers per route on the request path and handed to prom-client's registry in its
 * usual shape when /metrics is read. prom-client's labelled counter and histogram check and hash
 * their labels on every call: under /token load that was about 5% of the service's thread, for
 * two numbers per request. Routes and statuses are few (a route is the matched path pattern).
 */
export class HttpRequestMetrics {
  private readonly routes = new Map<string, RouteTally>()
  /** GET answers the kept lane wrote (api/kept-lane.ts), also counted by route and status. */
  private laneAnswers = 0

  constructor(
    registry: Registry,
    private readonly bounds: readonly number[],
  ) {
    const counts = 'svc_http_requests_total'
    const latency = 'svc_http_request_duration_seconds'
    registry.registerMetric(this.metric(counts, 'HTTP requests, by route and status', 'counter', () => this.countValues()) as never)
    registry.registerMetric(this.metric(latency, 'HTTP request latency, by route', 'histogram', () => this.latencyValues(latency)) as never)
    const lane = 'svc_http_kept_lane_answers_total'
    registry.registerMetric(this.metric(lane, 'GET answers written by the kept lane, before Fastify (api/kept-lane.ts); svc_http_requests_total counts them too', 'counter', () => [{ labels: {}, value: this.laneAnswers }]) as never)
  }

  /** Count one answered request (`lane`: written by the kept lane). */
  record(route: string, status: number, seconds: number, lane = false): void {
    if (lane) this.laneAnswers++
    let t = this.routes.get(route)
    if (!t) this.routes.set(route, (t = { statuses: new Map(), buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 }))
    t.statuses.set(status, (t.statuses.get(status) ?? 0) + 1)
    // As prom-client places a value: in the first bucket whose bound it does not exceed.
    let i = 0
    while (i < this.bounds.length && seconds > this.bounds[i]!) i++
    t.buckets[i]!++
    t.sum += seconds
    t.count++
  }

  /** GET answers the kept lane wrote so far. */
  keptLaneAnswers(): number {
    return this.laneAnswers
  }

  /** Requests counted for a route (and status): what the exported series say. */
  count(route: string, status?: number): number {
    const t = this.routes.get(route)
    if (!t) return 0
    return status === undefined ? t.count : (t.statuses.get(status) ?? 0)
  }

  private countValues(): Value[] {
    const values: Value[] = []
    for (const [route, t] of this.routes) for (const [status, n] of t.statuses) values.push({ labels: { route, status: String(status) }, value: n })
    return values
  }

  private latencyValues(name: string): Value[] {
    const values: Value[] = []
    for (const [route, t] of this.routes) {
      let cumulative = 0
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += t.buckets[i]!
        values.push({ labels: { le: i < this.bounds.length ? this.bounds[i]! : '+Inf', route }, value: cumulative, metricName: `${name}_bucket` })
      }
      values.push({ labels: { route }, value: t.sum, metricName: `${name}_sum` })
      values.push({ labels: { route }, value: t.count, metricName: `${name}_count` })
    }
    return values
  }

  /** A metric as prom-client's registry reads one (name, get, reset). */
  private metric(name: string, help: string, type: 'counter' | 'histogram', values: () => Value[]) {
    return {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }),
      reset: () => {
        this.routes.clear()
        this.laneAnswers = 0
      },
    }
  }
}
