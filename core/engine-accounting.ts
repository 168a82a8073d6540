import { AsyncLocalStorage } from 'node:async_hooks'
import { longStatementsLike, type ClickHouseClient } from './clickhouse.ts'
import type { Metrics } from './metrics.ts'

/**
 * Who is running a statement on the engine: the consumer (or role part) and its step. Set around
 * a consumer's steps and sink, and narrowed inside a step (the serving refresh names its parts),
 * so `svc_engine_statements_total` and `svc_engine_seconds_total` say what each batch costs.
 * Statements outside any consumer (API reads, scans, the audit) count as `consumer="other"`.
 */
interface EngineContext {
  consumer: string
  step: string
}

const current = new AsyncLocalStorage<EngineContext>()

/** Run `f` with its engine statements counted under `consumer` and `step`. */
export function inEngineContext<T>(consumer: string, step: string, f: () => Promise<T>): Promise<T> {
  return current.run({ consumer, step }, f)
}

/** Run `f` with its engine statements counted under `step`, within the current consumer. */
export function engineStep<T>(step: string, f: () => Promise<T>): Promise<T> {
  const outer = current.getStore()
  return current.run({ consumer: outer?.consumer ?? 'other', step: outer ? `${outer.step}/${step}` : step }, f)
}

/**
 * Run `f` outside any engine context: work it starts (a pass woken by a served batch, a long poll's
 * page) counts as its own (`consumer="other"`, or the request's), not as the batch's that woke it.
 */
export function outsideEngineContext<T>(f: () => T): T {
  return current.exit(f)
}

const STATEMENTS = new Set(['query', 'exec', 'insert', 'command'])

/** The class a consumer's statements wait in: API requests, the pipeline's consumers, or the rest. */
export function engineClass(consumer: string): 'api' | 'pipeline' | 'other' {
  return consumer === API_CONSUMER ? 'api' : consumer === 'other' ? 'other' : 'pipeline'
}

/** The consumer label of statements an API request runs (routes set it around the handler). */
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

/** The client, each statement counted with its time under the caller's engine context. */
export function accountEngine(ch: ClickHouseClient, metrics: Pick<Metrics, 'engineStatements' | 'engineSeconds' | 'engineWait'>): ClickHouseClient {
  const accounted = new Proxy(ch, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (typeof prop !== 'string' || !STATEMENTS.has(prop) || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value
      return (...args: unknown[]) => {
        const { consumer, step } = current.getStore() ?? { consumer: 'other', step: 'other' }
        const labels = { consumer, step }
        const t0 = performance.now()
        const done = () => {
          metrics.engineStatements.inc(labels)
          metrics.engineSeconds.inc(labels, (performance.now() - t0) / 1000)
        }
        const result = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)
        result.then(done, done)
        if (prop === 'query') {
          result.then((r) => {
            const waited = waitedSeconds(r, t0)
            if (waited !== undefined) metrics.engineWait.observe({ class: engineClass(consumer) }, waited)
          }, () => {})
        }
        return result
      }
    },
  })
  longStatementsLike(accounted, ch, (long) => accountEngine(long, metrics))
  return accounted
}
