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

const STATEMENTS = new Set(['query', 'exec', 'insert', 'command'])

/** The client, each statement counted with its time under the caller's engine context. */
export function accountEngine(ch: ClickHouseClient, metrics: Pick<Metrics, 'engineStatements' | 'engineSeconds'>): ClickHouseClient {
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
        return result
      }
    },
  })
  longStatementsLike(accounted, ch, (long) => accountEngine(long, metrics))
  return accounted
}
