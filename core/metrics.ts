import { createInfraFaults } from './infra-faults.ts'
import { HttpRequestMetrics } from './http-request-metrics.ts'
import { AggregatorRegistry, collectDefaultMetrics, Counter as PromCounter, Gauge as PromGauge, Histogram as PromHistogram, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client'

/**
 * The metrics one process exposes on GET /metrics, kept by prom-client (the Prometheus client
 * of the Node ecosystem): its default process metrics (event-loop lag, heap, GC, handles, CPU)
 * plus ours. Pipelines and the API write into the same registry. The small classes below keep
 * the call sites free of prom-client's types: `inc(labels, by)`, `set(labels, v)`,
 * `observe(labels, seconds)`.
 */

type Labels = Record<string, string>

export class Counter {
  readonly metric: PromCounter<string>
  constructor(registry: Registry, readonly name: string, help: string, labelNames: readonly string[]) {
    this.metric = new PromCounter({ name, help, labelNames, registers: [registry] })
  }
  inc(labels: Labels = {}, by = 1): void {
    this.metric.inc(labels, by)
  }
  /** The value counted for exactly these labels (0 when none). */
  async get(labels: Labels = {}): Promise<number> {
    return valueOf((await this.metric.get()).values, labels)
  }
}

export class Gauge {
  readonly metric: PromGauge<string>
  private collectors: Array<() => void> = []
  constructor(registry: Registry, readonly name: string, help: string, labelNames: readonly string[]) {
    const collectors = this.collectors
    this.metric = new PromGauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        for (const c of collectors) c()
      },
    })
  }
  set(labels: Labels, value: number): void {
    this.metric.set(labels, Number.isFinite(value) ? value : 0)
  }
  /** Register a function that sets the gauge's values just before each scrape. */
  onCollect(fn: () => void): void {
    this.collectors.push(fn)
  }
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
/** A woken long poll's budget is 100 ms (issue 21): buckets fine enough around it. */
const LONG_POLL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1, 2.5]
/** A live batch's budget is a 150 ms mean and a 300 ms p99 (issue 23): buckets fine enough around both; backfill batches take seconds. */
const BATCH_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 1, 2.5, 5, 10, 30]
/** A paid call's budget is a 50 ms p99 alone, 100 ms among every other caller (issue 21): the facilitator's share of it, finely. */
const FACILITATOR_BUCKETS = [0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10, 30]
/** The engine wait's budget is 50 ms (issue 23): buckets fine enough below it to say by how much. */
const ENGINE_WAIT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export class Histogram {
  readonly metric: PromHistogram<string>
  constructor(registry: Registry, readonly name: string, help: string, labelNames: readonly string[], buckets = LATENCY_BUCKETS) {
    this.metric = new PromHistogram({ name, help, labelNames, buckets, registers: [registry] })
  }
  observe(labels: Labels, seconds: number): void {
    this.metric.observe(labels, seconds)
  }
  /** Sum and count observed so far for these labels (benchmarks read per-step costs from them). */
  async totals(labels: Labels): Promise<{ sum: number; count: number }> {
    const values = (await this.metric.get()).values
    return { sum: valueOf(values, labels, `${this.name}_sum`), count: valueOf(values, labels, `${this.name}_count`) }
  }
}

function valueOf(values: Array<{ labels: Partial<Record<string, string | number>>; value: number; metricName?: string }>, labels: Labels, metricName?: string): number {
  const keys = Object.keys(labels)
  const found = values.find(
    (v) =>
      (metricName === undefined || v.metricName === metricName) &&
      Object.keys(v.labels).length === keys.length &&
      keys.every((k) => String(v.labels[k]) === labels[k]),
  )
  return found?.value ?? 0
}

/**
 * Lookups of the in-process caches, by cache name, counted where the caches live (they take no
 * metrics object) and read by every registry's `svc_cache_lookups_total` at scrape time.
 */
const cacheLookups = new Map<string, { hit: number; miss: number }>()

export function countCacheLookup(cache: string, hit: boolean, n = 1): void {
  let c = cacheLookups.get(cache)
  if (!c) cacheLookups.set(cache, (c = { hit: 0, miss: 0 }))
  if (hit) c.hit += n
  else c.miss += n
}

/** Lookups of one in-process cache so far (what `svc_cache_lookups_total` exports for it). */
export function cacheLookupCounts(cache: string): { hit: number; miss: number } {
  return { ...(cacheLookups.get(cache) ?? { hit: 0, miss: 0 }) }
}

export interface MetricsOptions {
  /** prom-client's default process metrics (event loop, heap, GC, handles). Default true. */
  processMetrics?: boolean
  /** Prefix of the default process metrics. Default 'svc_'. */
  prefix?: string
}

/** The metrics one process exposes. */
export function createMetrics(options: MetricsOptions = {}) {
  const registry = new Registry()
  if (options.processMetrics ?? true) {
    const prefix = options.prefix ?? 'svc_'
    collectDefaultMetrics({ register: registry, prefix })
    // prom-client also exports nodejs_active_{handles,requests,resources}_total: gauges named like
    // counters (Prometheus keeps _total for counters; promtool warns). Each is the sum of the
    // by-type gauge of the same name without _total, so they are dropped: sum() that one instead.
    for (const what of ['handles', 'requests', 'resources']) registry.removeSingleMetric(`${prefix}nodejs_active_${what}_total`)
  }
  const r = registry
  const metrics = {
    ingestRows: new Counter(r, 'svc_ingest_rows_total', 'Rows inserted into ClickHouse raw tables, by table', ['table']),
    ingestRowsPerSecond: new Gauge(r, 'svc_ingest_rows_per_second', 'Rows inserted per second over the last 10 seconds, by consumer', ['consumer']),
    busLag: new Gauge(r, 'svc_bus_lag_messages', 'Messages not yet processed, by consumer', ['consumer']),
    ingestLagBlocks: new Gauge(r, 'svc_ingest_lag_blocks', 'Blocks published on the chain topic and not yet ingested, by chain', ['chain']),
    batchLatency: new Histogram(r, 'svc_batch_duration_seconds', 'Time to decode and insert one batch, by consumer', ['consumer'], BATCH_BUCKETS),
    servingRefresh: new Histogram(r, 'svc_serving_refresh_duration_seconds', 'Time to refresh the serving state a batch touched, by chain', ['chain']),
    batches: new Counter(r, 'svc_batches_total', 'Batches processed, by consumer and outcome', ['consumer', 'outcome']),
    deadLetters: new Counter(r, 'svc_dead_letters_total', 'Records sent to a dead-letter topic, by topic, reason and step', ['topic', 'reason', 'step']),
    stepResults: new Counter(r, 'svc_consumer_step_results_total', 'Records by consumer, step and result (ok, drop, dlq, hold, failed)', ['consumer', 'step', 'result']),
    stepDuration: new Histogram(r, 'svc_consumer_step_duration_seconds', 'Time spent in one step over one batch, by consumer and step', ['consumer', 'step']),
    consumerRetries: new Counter(r, 'svc_consumer_retries_total', 'Failed attempts that were retried, by consumer, step and class (retryable, fatal)', ['consumer', 'step', 'class']),
    infraRetries: new Counter(r, 'svc_pipeline_infra_retries_total', 'Attempts that failed with an infrastructure fault (EMFILE, ENOSPC, timeouts, broker or engine down) and were retried, by consumer or source and kind', ['consumer', 'kind']),
    infraFaultActive: new Gauge(r, 'svc_pipeline_infra_fault_active', '1 while a consumer or source is retrying an infrastructure fault, by component, where and kind', ['component', 'at', 'kind']),
    watermark: new Gauge(r, 'svc_measured_through_block', 'Last block fully ingested and served, by chain', ['chain']),
    simBehind: new Gauge(r, 'svc_sim_behind_seconds', 'Seconds of venue time a simulated venue still has to publish (its history catching up; 0 once it publishes live), by source', ['source']),
    servedBlockAge: new Gauge(r, 'svc_served_block_age_seconds', 'Seconds since the timestamp of the last served block, by chain: a few seconds when live, the chain time still to catch up while behind', ['chain']),
    httpRequests: new HttpRequestMetrics(r, LATENCY_BUCKETS),
    longPollAnswer: new Histogram(
      r,
      'svc_long_poll_answer_seconds',
      'Time from the data advance that woke a waiting long poll (a served batch, social rows) to its answer written, by route; the commit itself in one process, when the API learnt of it across processes',
      ['route'],
      LONG_POLL_BUCKETS,
    ),
    x402: new Counter(r, 'svc_x402_payments_total', 'x402 payments by step (verify, settle) and outcome (valid, settled, a refusal reason, error)', ['step', 'outcome']),
    auditKeysChecked: new Counter(r, 'svc_audit_keys_checked_total', 'Keys of kept views the scheduled audit compared with raw rows, by view', ['view']),
    alertProducerPasses: new Counter(r, 'svc_alert_producer_passes_total', 'Passes of the alert producers, by part (launches: woken by a served batch; calls: by social rows; both on the safety timer)', ['part']),
    auditDrift: new Counter(r, 'svc_audit_drift_total', 'Keys the scheduled audit found drifted from raw rows (confirmed by a second look), by view', ['view']),
    engineStatements: new Counter(r, 'svc_engine_statements_total', 'Statements sent to the ClickHouse engine, by consumer and step (api: requests, by path; other: scans, audits, background passes)', ['consumer', 'step']),
    engineSeconds: new Counter(r, 'svc_engine_seconds_total', 'Seconds from sending a statement to its answer, by consumer and step', ['consumer', 'step']),
    engineWait: new Histogram(
      r,
      'svc_engine_wait_seconds',
      "Time a query waited before the engine ran it (time to the answer's headers less the engine's own elapsed time, engine over HTTP only), by class (api, pipeline, other)",
      ['class'],
      ENGINE_WAIT_BUCKETS,
    ),
    x402Duration: new Histogram(r, 'svc_x402_facilitator_duration_seconds', 'Time the facilitator took to verify, settle, or verify and settle (one call, for an answer memory holds) one payment, by step', ['step'], FACILITATOR_BUCKETS),
  }
  new PromCounter({
    name: 'svc_cache_lookups_total',
    help: 'In-process cache lookups, by cache and result (hit, miss)',
    labelNames: ['cache', 'result'],
    registers: [registry],
    collect() {
      this.reset()
      for (const [cache, c] of cacheLookups) {
        this.inc({ cache, result: 'hit' }, c.hit)
        this.inc({ cache, result: 'miss' }, c.miss)
      }
    },
  })
  // The faults being retried now: /health reads them, the gauge shows them.
  const infraFaults = createInfraFaults()
  metrics.infraFaultActive.onCollect(() => {
    metrics.infraFaultActive.metric.reset()
    // This process's own: a peer's are in its own exposition, merged by render().
    for (const f of infraFaults.own()) metrics.infraFaultActive.set({ component: f.component, at: f.at, kind: f.error_class }, 1)
  })
  // The processes beside this one whose metrics it exposes as well (svc start's pipeline process,
  // read by its API process).
  const peers: Array<() => Promise<PeerMetrics>> = []
  return {
    ...metrics,
    infraFaults,
    registry,
    contentType: registry.contentType,
    /**
     * The text exposition of every metric, this process's and its peers' merged as one service's
     * (prom-client's aggregation: counters and histograms summed, each gauge as it declares).
     */
    async render(): Promise<string> {
      if (peers.length === 0) return registry.metrics()
      const all = await Promise.all([registry.getMetricsAsJSON(), ...peers.map((read) => read())])
      return AggregatorRegistry.aggregate(all).metrics()
    },
    /** This process's metrics as data, for a peer to merge (see render). */
    snapshot: (): Promise<PeerMetrics> => registry.getMetricsAsJSON(),
    /** Expose a peer process's metrics with this process's. */
    addPeer(read: () => Promise<PeerMetrics>): void {
      peers.push(read)
    },
  }
}

export type Metrics = ReturnType<typeof createMetrics>

/** One process's metrics as data (prom-client's JSON form). */
export type PeerMetrics = Array<MetricObjectWithValues<MetricValue<string>>>
