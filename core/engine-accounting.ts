import { siblingsLike, withPatience, type ClickHouseClient } from './clickhouse.ts'
import type { Metrics } from './metrics.ts'

/**
 * Who is running a statement on the engine: the consumer (or role part) and its step, so
 * `svc_engine_statements_total` and `svc_engine_seconds_total` say what each batch costs.
 * Statements outside any consumer (scans, audits, background passes) count as `consumer="other"`.
 *
 * The label travels with the client, not with the async context: a consumer's steps run through
 * its own client (`engineFor`), whose step the consumer framework sets before each step
 * (`setEngineStep`: a consumer runs one step at a time), and a step names its parts with
 * derived clients (`engineStep`). No AsyncLocalStorage: its hooks ran on every promise of the
 * process, requests included (about a tenth of a `/token` request's time).
 */
type EngineLabel = { consumer: string; step: string }

const OTHER: EngineLabel = { consumer: 'other', step: 'other' }

interface Accounting {
  raw: ClickHouseClient
  metrics: EngineMetrics
  label: () => EngineLabel
  /** Set for a consumer's client: the step its framework is running, and its patience. */
  current?: ConsumerEngine
}

/**
 * What a consumer's client carries: the step its framework is running (for the counts) and its
 * patience, the multiple of the engine client's request timeout its statements may wait for an
 * answer (1 until a statement of the consumer times out; pipelines/consumer/engine-patience.ts).
 */
interface ConsumerEngine {
  step: string
  patience: number
}

type EngineMetrics = Pick<Metrics, 'engineStatements' | 'engineSeconds' | 'engineWait'>

const accounts = new WeakMap<ClickHouseClient, Accounting>()

const STATEMENTS = new Set(['query', 'exec', 'insert', 'command'])

/** The class a consumer's statements wait in: API requests, the pipeline's consumers, or the rest. */
export function engineClass(consumer: string): 'api' | 'pipeline' | 'other' {
  return consumer === API_CONSUMER ? 'api' : consumer === 'other' ? 'other' : 'pipeline'
}

/** The consumer label of statements the API runs (its kept state's reads and its handlers'). */
export const API_CONSUMER = 'api'

/**
 * How long a query waited before the engine started it: the time to its answer's headers less
 * the engine's elapsed time it reports with them (`X-ClickHouse-Summary`), or undefined where
 * the engine reports none (in-process).
 */
function waitedSeconds(result: unknown, sinceMs: number): number | undefined {
  const summary = (result as { response_headers?: Record<string, string | string[] | undefined> } | undefined)?.response_headers?.['x-clickhouse-summary']
  if (typeof summary !== 'string') return undefined
  const elapsedNs = Number((JSON.parse(summary) as { elapsed_ns?: string }).elapsed_ns)
  if (!Number.isFinite(elapsedNs)) return undefined
  return Math.max(0, (performance.now() - sinceMs) / 1000 - elapsedNs / 1e9)
}

/** `raw`, each statement counted with its time under `label()` (read when the statement is sent). */
function labeled(a: Omit<Accounting, 'label' | 'current'>, label: () => EngineLabel, current?: ConsumerEngine): ClickHouseClient {
  const client = new Proxy(a.raw, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (typeof prop !== 'string' || !STATEMENTS.has(prop) || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value
      return (...args: unknown[]) => {
        const labels = label()
        const t0 = performance.now()
        const done = () => {
          a.metrics.engineStatements.inc(labels)
          a.metrics.engineSeconds.inc(labels, (performance.now() - t0) / 1000)
        }
        const send = (c: ClickHouseClient) => (Reflect.get(c, prop) as (...x: unknown[]) => Promise<unknown>).apply(c, args)
        const result = current && current.patience > 1 ? withPatience(target, current.patience).then(send) : send(target)
        result.then(done, done)
        if (prop === 'query') {
          result.then((r) => {
            const waited = waitedSeconds(r, t0)
            if (waited !== undefined) a.metrics.engineWait.observe({ class: engineClass(labels.consumer) }, waited)
          }, () => {})
        }
        return result
      }
    },
  })
  accounts.set(client, { ...a, label, current })
  siblingsLike(client, a.raw, (sibling) => labeled({ ...a, raw: sibling }, label))
  return client
}

/** The client, each statement counted with its time (as `consumer="other"` until labeled). */
export function accountEngine(ch: ClickHouseClient, metrics: EngineMetrics): ClickHouseClient {
  return labeled({ raw: ch, metrics }, () => OTHER)
}

/**
 * The same engine, its statements counted under `consumer` and `step` (a consumer's client: the
 * consumer framework moves its step with `setEngineStep`). A client not accounted is returned as is.
 */
export function engineFor(ch: ClickHouseClient, consumer: string, step = 'other'): ClickHouseClient {
  const a = accounts.get(ch)
  if (!a) return ch
  const current: ConsumerEngine = { step, patience: 1 }
  return labeled(a, () => ({ consumer, step: current.step }), current)
}

/** The step a consumer's client (`engineFor`) counts its statements under from now on. */
export function setEngineStep(ch: ClickHouseClient, step: string): void {
  const current = accounts.get(ch)?.current
  if (current) current.step = step
}

/** A consumer client's patience (1 for any other client). */
export function enginePatience(ch: ClickHouseClient): number {
  return accounts.get(ch)?.current?.patience ?? 1
}

/** Set a consumer client's patience: its statements wait `factor` times the request timeout. */
export function setEnginePatience(ch: ClickHouseClient, factor: number): void {
  const current = accounts.get(ch)?.current
  if (current) current.patience = Math.max(1, factor)
}

/** The same engine, its statements counted under `step` within `ch`'s step (`<step of ch>/<step>`). */
export function engineStep(ch: ClickHouseClient, step: string): ClickHouseClient {
  const a = accounts.get(ch)
  if (!a) return ch
  const outer = a.label
  // A part of a consumer's step waits as patiently as the consumer (its `current`).
  return labeled(a, () => {
    const o = outer()
    return { consumer: o.consumer, step: o.consumer === OTHER.consumer ? step : `${o.step}/${step}` }
  }, a.current)
}
