import { setEngineStep } from '../../core/engine-accounting.ts'
import { loopTurnIfDue } from '../../core/loop-turns.ts'
import { createEnginePatience } from './engine-patience.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { z } from 'zod'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import { DEFAULT_MAX_BATCH, type BatchControl, type Bus, type BusBatch, type BusMessage, type Subscription } from '../../core/bus/types.ts'
import { deadLetterTopic, namespaced } from '../../core/bus/topics.ts'
import { offsetRangeToken } from './batch-token.ts'
import { createDeadLetterWriter, type DeadLetter } from './dead-letter.ts'
import { createParseStep } from './parse-step.ts'
import { attempt, ConsumerStopping, type RetryHooks, type RetryPolicy } from './retry.ts'
import type { Step, StepResult } from './step-result.ts'

/** A record that went through every step, with the bus message it came from. */
export interface SinkItem<T> {
  value: T
  message: BusMessage
}

export interface SinkContext {
  /** insert_deduplication_token for these items (topic, partition, offset range, content digest). */
  token: string
  topic: string
  partition: number
  /** Dead-letter something found while writing (e.g. one undecodable log of a block). */
  deadLetter(letter: { message: BusMessage; reason: string; value?: string }): void
}

/**
 * Where the items of a batch end up. Resolving means they are acknowledged (inserted): only
 * then are the offsets committed. `{ through }` acknowledges only the items up to that offset
 * (null: none yet); the rest are delivered again later.
 */
export interface Sink<T> {
  readonly name: string
  write(items: SinkItem<T>[], ctx: SinkContext): Promise<void | { through: string | null }>
}

export interface ConsumerOptions<S extends z.ZodType, T = z.output<S>> {
  /** The consumer's name: metrics label, log field, and (namespaced) consumer group unless `groupId` is set. */
  name: string
  bus: Bus
  logger: Logger
  metrics: Metrics
  /** BUS_NAMESPACE: prefixes the topic and the group. */
  namespace?: string
  /** The topic (un-namespaced); its dead letters go to `<topic>.dlq`. */
  topic: string
  groupId?: string
  /** The record schema, applied to every record first (not JSON or not matching: dead letter). */
  schema: S
  /** Steps after parsing, in order; the first receives the parsed record, the sink the last one's output. */
  steps?: Array<Step<any, any>>
  sink: Sink<T>
  /**
   * The consumer's engine client (`engineFor(ch, name)`), which its steps and sink write through:
   * before each step and the sink it is told the step, so their statements count under it
   * (svc_engine_statements_total{consumer,step}).
   */
  engine?: ClickHouseClient
  maxBatchSize?: number
  /**
   * Batch by time: after a batch that did not fill `maxBatchSize`, wait this long before taking
   * the next, so the records arriving meanwhile go in one batch (one insert, one refresh) instead
   * of one batch each. For small, steady topics (posts, sightings, prices, trades); records wait
   * at most this long. Default 0: take each batch as soon as it is there.
   */
  flushEveryMs?: number
  /**
   * Batch by time, aligned: after a batch that did not fill (and the `flushEveryMs` pause), wait
   * for this too before taking the next (a quiet moment of the engine, such as just after another
   * consumer's batch was served), so the batches of two consumers on one engine do not drift into
   * each other. It should resolve within seconds.
   */
  flushAfter?: () => Promise<void>
  /** Where a group with no committed offset starts (default: the beginning). */
  fromBeginning?: boolean
  /** Called with the lag in messages each time it is measured (every 2 s). */
  onLag?: (messages: number) => void
  /**
   * Attempts at a record or batch failing with a fatal error (the record's own fault) before it
   * is dead-lettered (default 3). Infrastructure faults never count: they are retried until they clear.
   */
  maxAttempts?: number
  /** First wait after a failure, doubling (default 100 ms), up to `maxBackoffMs` (default 10 s). */
  backoffMs?: number
  maxBackoffMs?: number
}

export interface Consumer {
  /** Create the topic and its dead-letter sibling, and subscribe. */
  start(): Promise<void>
  /** Stop consuming; the running batch finishes (or, when stuck retrying, is left uncommitted). */
  stop(): Promise<void>
  lag(): Promise<number>
}

/**
 * The one consumer loop. For each delivered batch: every record is parsed with the schema and
 * passed through the steps in order; the survivors go to the sink in one call; dead letters are
 * written; then the offsets up to what the sink acknowledged are committed. Thrown errors are
 * classified (see classify-error.ts): infrastructure faults (EMFILE, ENOSPC, timeouts, the engine,
 * broker or store away) are retried with backoff (100 ms doubling to 10 s) for as long as they
 * last, the batch and its offsets waiting meanwhile, so nothing behind an unstored record is
 * committed; fatal ones `maxAttempts` times, after which the record is dead-lettered with the
 * error and the records behind it go on. A batch the sink refuses for good is split into single
 * records, so only the poison one is dead-lettered.
 */
export function createConsumer<S extends z.ZodType, T = z.output<S>>(opts: ConsumerOptions<S, T>): Consumer {
  const { bus, logger, metrics, name: consumer } = opts
  const topic = namespaced(opts.namespace ?? '', opts.topic)
  const steps: Array<Step<any, any>> = [createParseStep(opts.schema), ...(opts.steps ?? [])]
  const policy: RetryPolicy = { maxAttempts: opts.maxAttempts ?? 3, backoffMs: opts.backoffMs ?? 100, maxBackoffMs: opts.maxBackoffMs ?? 10_000 }
  const writeDeadLetters = createDeadLetterWriter({ bus, metrics })
  let subscription: Subscription | undefined
  let lagTimer: NodeJS.Timeout | undefined
  let stopping = false
  let wakeStop = () => {}
  const stopped = new Promise<void>((r) => (wakeStop = r))

  const sleep = (ms: number) => Promise.race([stopped, new Promise<void>((r) => setTimeout(r, ms).unref())])
  const patience = createEnginePatience(opts.engine)
  const retryHooks = (step: string): RetryHooks => ({
    stopping: () => stopping,
    sleep,
    onRetry(kind, err, n, infra) {
      metrics.consumerRetries.inc({ consumer, step, class: kind })
      if (infra === 'timeout' && opts.engine) {
        const factor = patience.timedOut()
        logger.warn({ consumer, step, patience: factor }, `${step}: a statement timed out; the retry waits ${factor} times the engine's request timeout`)
      }
      if (infra) {
        // Never dead-lettered: /health says degraded, naming this consumer and the error class.
        metrics.infraRetries.inc({ consumer, kind: infra })
        metrics.infraFaults.retrying(consumer, step, infra, err)
        // One line per outage and then every tenth attempt, not one per backoff step.
        if (n === 1 || n % 10 === 0) logger.warn({ consumer, step, error_class: infra, attempt: n, err: err instanceof Error ? err.message : String(err) }, `${step}: infrastructure fault; retrying until it clears`)
      } else {
        logger.warn({ consumer, step, class: kind, attempt: n, err }, `${step} failed; retrying`)
      }
    },
    onInfraSettled() {
      metrics.infraFaults.cleared(consumer, step)
      logger.info({ consumer, step }, `${step}: infrastructure fault over`)
    },
  })

  // One batch at a time, a step at a time: the engine client's step is the running one's.
  const inStep = (step: string) => {
    if (opts.engine) setEngineStep(opts.engine, step)
  }

  /** Every step over one record; the first answer other than ok ends it. */
  async function runRecord(m: BusMessage, seconds: Map<string, number>): Promise<{ result: StepResult<T>; step: string }> {
    let value: unknown = m.value
    for (const step of steps) {
      const t0 = performance.now()
      const r = await attempt(async () => {
        inStep(step.name)
        return step.run(value, m)
      }, policy, retryHooks(step.name))
      seconds.set(step.name, (seconds.get(step.name) ?? 0) + (performance.now() - t0) / 1000)
      const result: StepResult<unknown> = r.ok ? r.value : { kind: 'dlq', reason: `failed: ${r.error}` }
      metrics.stepResults.inc({ consumer, step: step.name, result: r.ok ? result.kind : 'failed' })
      if (result.kind !== 'ok') return { result: result as StepResult<T>, step: step.name }
      value = result.value
    }
    return { result: { kind: 'ok', value: value as T }, step: '' }
  }

  /** The sink over `items`, retried; refused for good, it is tried record by record and the poison ones dead-lettered. */
  async function write(batch: BusBatch, items: SinkItem<T>[], letters: DeadLetter[]): Promise<string | null> {
    // Digested when a sink asks for it: a chain batch names itself by its blocks, and hashing a
    // backfill batch's messages (about 100 MB over the default world's) cost its thread a second.
    let token: string | undefined
    const tokenOfBatch = () => (token ??= offsetRangeToken(topic, batch.partition, items.map((i) => i.message)))
    const t0 = performance.now()
    const r = await attempt(async () => {
      // Dead letters found by an attempt count only if that attempt succeeds: a retry finds them again.
      const found: DeadLetter[] = []
      const ctx: SinkContext = { get token() { return tokenOfBatch() }, topic, partition: batch.partition, deadLetter: (l) => found.push({ ...l, step: opts.sink.name }) }
      inStep(opts.sink.name)
      const acked = await opts.sink.write(items, ctx)
      letters.push(...found)
      return acked
    }, policy, retryHooks(opts.sink.name))
    metrics.stepDuration.observe({ consumer, step: opts.sink.name }, (performance.now() - t0) / 1000)
    metrics.stepResults.inc({ consumer, step: opts.sink.name, result: r.ok ? 'ok' : 'failed' }, items.length)
    if (r.ok) return r.value ? r.value.through : items[items.length - 1]!.message.offset
    if (items.length === 1) {
      letters.push({ message: items[0]!.message, reason: `failed: ${r.error}`, step: opts.sink.name })
      return items[0]!.message.offset
    }
    // Tables a refused multi-table batch had already reached receive its records again under
    // single-record tokens: their natural keys absorb that (ReplacingMergeTree, idempotent views).
    logger.warn({ consumer, items: items.length, err: r.error }, 'the sink refused the batch; writing its records one by one')
    let through: string | null = null
    for (const item of items) {
      const done = await write(batch, [item], letters)
      if (done === null) break
      through = done
    }
    return through
  }

  async function onBatch(batch: BusBatch, control: BatchControl): Promise<void> {
    const started = performance.now()
    const seconds = new Map<string, number>()
    for (const step of steps) {
      if (!step.beforeBatch) continue
      const r = await attempt(async () => {
        inStep(step.name)
        return step.beforeBatch!()
      }, policy, retryHooks(step.name))
      if (!r.ok) throw new Error(`${step.name}: ${r.error}`)
    }
    const items: SinkItem<T>[] = []
    const letters: DeadLetter[] = []
    // The last record that reached a decision; a hold leaves it and everything behind it for later.
    let through: string | null = null
    for (const m of batch.messages) {
      await loopTurnIfDue()
      const { result, step } = await runRecord(m, seconds)
      if (result.kind === 'hold') {
        logger.debug({ consumer, offset: m.offset, reason: result.reason }, 'holding the rest of the batch')
        break
      }
      through = m.offset
      if (result.kind === 'ok') items.push({ value: result.value, message: m })
      else if (result.kind === 'dlq') letters.push({ message: m, reason: result.reason, step })
    }
    if (items.length > 0) {
      const acked = await write(batch, items, letters)
      // Items the sink did not acknowledge, and the records after them, come again.
      if (acked === null || BigInt(acked) < BigInt(items[items.length - 1]!.message.offset)) through = acked
    }
    const done = through
    const dead = done === null ? [] : letters.filter((l) => BigInt(l.message.offset) <= BigInt(done))
    const published = await attempt(() => writeDeadLetters(topic, dead), policy, retryHooks('dead-letter'))
    if (!published.ok) throw new Error(`dead letters not written: ${published.error}`)
    control.doneThrough(done ?? (BigInt(batch.messages[0]!.offset) - 1n).toString())
    patience.batchDone()
    for (const [step, s] of seconds) metrics.stepDuration.observe({ consumer, step }, s)
    metrics.batches.inc({ consumer, outcome: done === null ? 'wait' : 'ok' })
    metrics.batchLatency.observe({ consumer }, (performance.now() - started) / 1000)
    // Batching by time: pause once the bus is drained (a batch below the size, all of it taken); a
    // sink that took only part of what came (a chain batch's block limit) has more waiting.
    const drained = batch.messages.length < (opts.maxBatchSize ?? DEFAULT_MAX_BATCH) && (done === null || BigInt(done) >= BigInt(batch.messages.at(-1)!.offset))
    if ((opts.flushEveryMs || opts.flushAfter) && drained && !stopping) {
      if (opts.flushEveryMs) await sleep(opts.flushEveryMs)
      if (opts.flushAfter && !stopping) await Promise.race([stopped, opts.flushAfter()])
    }
  }

  return {
    async start() {
      await bus.ensureTopics([topic, deadLetterTopic(topic)])
      subscription = await bus.subscribe({
        groupId: namespaced(opts.namespace ?? '', opts.groupId ?? consumer),
        topics: [topic],
        fromBeginning: opts.fromBeginning ?? true,
        maxBatchSize: opts.maxBatchSize,
        onBatch,
        onError(err) {
          metrics.batches.inc({ consumer, outcome: 'error' })
          if (err instanceof ConsumerStopping) logger.debug({ consumer }, 'batch left uncommitted: stopping')
          else logger.error({ consumer, err }, 'batch failed; it will be delivered again')
        },
      })
      lagTimer = setInterval(() => {
        subscription?.lag().then((l) => {
          metrics.busLag.set({ consumer }, l)
          opts.onLag?.(l)
        }, () => {})
      }, 2000)
      lagTimer.unref()
    },
    async stop() {
      stopping = true
      wakeStop()
      clearInterval(lagTimer)
      await subscription?.stop()
    },
    lag: async () => (subscription ? subscription.lag() : 0),
  }
}
