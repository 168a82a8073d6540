/**
 * A small Prometheus registry: counters, gauges and histograms with labels, rendered in the
 * text exposition format for GET /metrics. Written here rather than pulled in because we need
 * four metric shapes and no push gateway, cluster aggregation or default process metrics.
 */

type Labels = Record<string, string>

function labelKey(labels: Labels): string {
  const keys = Object.keys(labels).sort()
  return keys.map((k) => `${k}="${String(labels[k]).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')
}

function fmt(name: string, key: string, value: number): string {
  return `${name}${key ? `{${key}}` : ''} ${Number.isFinite(value) ? value : 0}`
}

interface Metric {
  render(): string[]
}

export class Counter implements Metric {
  private values = new Map<string, number>()
  constructor(readonly name: string, readonly help: string) {}
  inc(labels: Labels = {}, by = 1): void {
    const k = labelKey(labels)
    this.values.set(k, (this.values.get(k) ?? 0) + by)
  }
  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels)) ?? 0
  }
  render(): string[] {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`, ...[...this.values].map(([k, v]) => fmt(this.name, k, v))]
  }
}

export class Gauge implements Metric {
  private values = new Map<string, number>()
  private collectors: Array<() => void> = []
  constructor(readonly name: string, readonly help: string) {}
  set(labels: Labels, value: number): void {
    this.values.set(labelKey(labels), value)
  }
  /** Register a function that sets the gauge's values just before each scrape. */
  onCollect(fn: () => void): void {
    this.collectors.push(fn)
  }
  render(): string[] {
    for (const c of this.collectors) c()
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`, ...[...this.values].map(([k, v]) => fmt(this.name, k, v))]
  }
}

const DEFAULT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export class Histogram implements Metric {
  private series = new Map<string, { counts: number[]; sum: number; count: number }>()
  constructor(readonly name: string, readonly help: string, readonly buckets = DEFAULT_BUCKETS) {}
  observe(labels: Labels, seconds: number): void {
    const k = labelKey(labels)
    let s = this.series.get(k)
    if (!s) this.series.set(k, (s = { counts: this.buckets.map(() => 0), sum: 0, count: 0 }))
    for (let i = 0; i < this.buckets.length; i++) if (seconds <= this.buckets[i]!) s.counts[i]!++
    s.sum += seconds
    s.count++
  }
  /** Sum and count observed so far for these labels (benchmarks read per-step costs from them). */
  totals(labels: Labels): { sum: number; count: number } {
    const s = this.series.get(labelKey(labels))
    return { sum: s?.sum ?? 0, count: s?.count ?? 0 }
  }
  render(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`]
    for (const [k, s] of this.series) {
      const sep = k ? ',' : ''
      this.buckets.forEach((b, i) => out.push(`${this.name}_bucket{${k}${sep}le="${b}"} ${s.counts[i]}`))
      out.push(`${this.name}_bucket{${k}${sep}le="+Inf"} ${s.count}`)
      out.push(fmt(`${this.name}_sum`, k, s.sum), fmt(`${this.name}_count`, k, s.count))
    }
    return out
  }
}

/** The metrics one process exposes. Pipelines and the API write into the same registry. */
export function createMetrics() {
  const metrics = {
    ingestRows: new Counter('svc_ingest_rows_total', 'Rows inserted into ClickHouse raw tables, by table'),
    ingestRowsPerSecond: new Gauge('svc_ingest_rows_per_second', 'Rows inserted per second over the last 10 seconds, by consumer'),
    busLag: new Gauge('svc_bus_lag_messages', 'Messages not yet processed, by consumer'),
    batchLatency: new Histogram('svc_batch_duration_seconds', 'Time to decode and insert one batch, by consumer'),
    servingRefresh: new Histogram('svc_serving_refresh_duration_seconds', 'Time to refresh the serving state a batch touched, by chain'),
    batches: new Counter('svc_batches_total', 'Batches processed, by consumer and outcome'),
    deadLetters: new Counter('svc_dead_letters_total', 'Records sent to a dead-letter topic, by topic, reason and step'),
    stepResults: new Counter('svc_consumer_step_results_total', 'Records by consumer, step and result (ok, drop, dlq, hold, failed)'),
    stepDuration: new Histogram('svc_consumer_step_duration_seconds', 'Time spent in one step over one batch, by consumer and step'),
    consumerRetries: new Counter('svc_consumer_retries_total', 'Failed attempts that were retried, by consumer, step and class (retryable, fatal)'),
    watermark: new Gauge('svc_measured_through_block', 'Last block fully ingested, by chain'),
    requests: new Counter('svc_http_requests_total', 'HTTP requests, by route and status'),
    requestLatency: new Histogram('svc_http_request_duration_seconds', 'HTTP request latency, by route'),
  }
  return {
    ...metrics,
    render(): string {
      return Object.values(metrics).flatMap((m) => m.render()).join('\n') + '\n'
    },
  }
}

export type Metrics = ReturnType<typeof createMetrics>
