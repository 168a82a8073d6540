import {
  Kafka,
  Partitioners,
  logLevel as KafkaLogLevel,
  type Consumer,
  type EachBatchPayload,
  type IHeaders,
  type KafkaMessage,
  type LogEntry,
} from 'kafkajs'
import { clampOffset } from './memory-bus.ts'
import { splitByBytes } from './byte-batches.ts'
import { isPermanentPublishError, nonRetriableBrokerError, PublishRefusedError } from './publish-errors.ts'
import { declaredTopicSettings, KAFKA_DEFAULT_MAX_MESSAGE_BYTES } from './topics.ts'
import { DEFAULT_MAX_BATCH, type BatchControl, type Bus, type BusBatch, type BusMessage, type SubscribeOptions, type Subscription } from './types.ts'

/** The pino-shaped logger kafkajs messages are forwarded to. */
export interface BusLogger {
  error(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
  info(obj: object, msg?: string): void
  debug(obj: object, msg?: string): void
}

export interface KafkaBusOptions {
  brokers: string[]
  clientId: string
  /** Without a logger kafkajs is silent. */
  logger?: BusLogger
  /** Lowest kafkajs level forwarded to `logger`. Default 'warn' (kafkajs is chatty at info). */
  logLevel?: 'error' | 'warn' | 'info' | 'debug'
  /** Partitions for topics that `ensureTopics` creates. Default 1. */
  partitions?: number
  /** Pause before a failed batch is fetched again. Default 500 ms. */
  retryDelayMs?: number
  /** How long `subscribe` waits for the group join and first fetch. Default 60 s. */
  joinTimeoutMs?: number
  /** Records per send at most (a publish is also split below the topic's max.message.bytes). Default 10,000. */
  maxRecordsPerSend?: number
  /**
   * Called when a batch handler fails with a publish the broker will never take (a record too
   * large, MESSAGE_TOO_LARGE...): redelivering the batch would fail the same way forever, so the
   * role should stop with that message. Without it the batch is redelivered like any failure.
   */
  onPermanentError?(err: Error): void
}

const DEFAULT_RECORDS_PER_SEND = 10_000
const HEARTBEAT_MS = 1_000
/** The longest pause between attempts to start a replacement consumer. */
const REVIVE_MAX_DELAY_MS = 10_000

/**
 * The bus over Kafka. Each subscription is one kafkajs consumer; offsets are committed
 * explicitly, per partition, only after `onBatch` resolves, and only through `doneThrough`.
 */
export function createKafkaBus(options: KafkaBusOptions): Bus {
  const retryDelayMs = options.retryDelayMs ?? 500
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    connectionTimeout: 3_000,
    requestTimeout: 30_000,
    ...(options.logger
      ? { logLevel: toKafkaLevel(options.logLevel ?? 'warn'), logCreator: forwardTo(options.logger) }
      : { logLevel: KafkaLogLevel.NOTHING }),
  })
  const subscriptions = new Set<Subscription>()
  // Connections are opened on first use and shared; a failed connect is retried next call.
  // acks=-1 and one request in flight: a retried send cannot overtake a later one, so order
  // within a key holds. (kafkajs's idempotent mode retries forever, which would turn a dead
  // broker into a publish() that never returns.)
  const producer = lazyConnection(() =>
    kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, maxInFlightRequests: 1, allowAutoTopicCreation: true }),
  )
  const admin = lazyConnection(() => kafka.admin())
  let closed = false
  // Each topic's max.message.bytes as the broker reports it (an operator may have raised it).
  const limits = new Map<string, number>()

  async function messageLimit(topic: string): Promise<number> {
    const known = limits.get(topic)
    if (known !== undefined) return known
    try {
      const a = await admin.get()
      const { resources } = await a.describeConfigs({ includeSynonyms: false, resources: [{ type: 2 /* TOPIC */, name: topic, configNames: ['max.message.bytes'] }] })
      const value = Number(resources[0]?.configEntries.find((e) => e.configName === 'max.message.bytes')?.configValue)
      if (Number.isFinite(value) && value > 0) {
        limits.set(topic, value)
        return value
      }
    } catch {
      // A topic not created yet is created on the first send with the broker's default.
    }
    return KAFKA_DEFAULT_MAX_MESSAGE_BYTES
  }

  async function ensureTopics(topics: string[]): Promise<void> {
    // Two processes starting together (a simulator and a pipeline) create the same topics at
    // once: the loser's wait for leaders can see a topic whose partitions are not hosted yet.
    // That settles within a moment; try again from the listing.
    for (let attempt = 1; ; attempt++) {
      try {
        const a = await admin.get()
        const existing = new Set(await a.listTopics())
        const missing = [...new Set(topics)].filter((t) => !existing.has(t))
        if (missing.length === 0) return
        // Returns false (no throw) when another process created them first.
        await a.createTopics({
          topics: missing.map((topic) => ({ topic, numPartitions: options.partitions ?? 1, configEntries: declaredConfig(topic) })),
          waitForLeaders: true,
        })
        return
      } catch (err) {
        if (attempt >= 5 || closed) throw err
        options.logger?.warn({ err: err instanceof Error ? err.message : String(err), attempt }, 'creating topics failed; retrying')
        await new Promise((r) => setTimeout(r, 500 * attempt))
      }
    }
  }

  async function subscribe(opts: SubscribeOptions): Promise<Subscription> {
    if (closed) throw new Error('kafka bus: subscribe() after close()')
    const maxBatch = Math.max(1, opts.maxBatchSize ?? DEFAULT_MAX_BATCH)
    let stopping = false
    let wakeStop: () => void = () => {}
    const stopped = new Promise<void>((r) => (wakeStop = r))
    let assigned: Record<string, number[]> | null = null
    // The kafkajs consumer in use: replaced when one stops on an error kafkajs does not restart from.
    let consumer: Consumer
    // 'starting' until the first join (a failure then is subscribe()'s to throw), then 'running';
    // 'reviving' while a replacement is being started (its own failures are the loop's to retry).
    let state: 'starting' | 'running' | 'reviving' = 'starting'
    let revival: Promise<void> = Promise.resolve()

    function createConsumer(): Consumer {
      const c = kafka.consumer({
        groupId: opts.groupId,
        sessionTimeout: 10_000,
        rebalanceTimeout: 10_000,
        heartbeatInterval: HEARTBEAT_MS,
        maxBytesPerPartition: 16 * 1024 * 1024,
        maxBytes: 64 * 1024 * 1024,
        // The fetch long-poll bounds how long stop() waits; data present returns at once.
        maxWaitTimeInMs: 500,
        allowAutoTopicCreation: true,
      })
      c.on(c.events.GROUP_JOIN, (e) => {
        assigned = e.payload.memberAssignment
      })
      c.on(c.events.CRASH, (e) => {
        // kafkajs restarts after a retriable error by itself. Some errors it does not restart from
        // are only the broker being away: a consumer (re)joining while it is down fails with
        // "Failed to find group coordinator", which kafkajs counts as final. Once running, this
        // subscription outlives that: a new consumer joins the group from its committed offsets.
        if (e.payload.restart || stopping || c !== consumer || state !== 'running') return
        state = 'reviving'
        options.logger?.warn({ err: e.payload.error, groupId: opts.groupId }, 'kafka consumer stopped on an error kafkajs does not restart from; starting a new one')
        revival = revive(c)
      })
      return c
    }

    // Joined and fetched once, or thrown (the consumer disconnected again).
    async function start(c: Consumer): Promise<void> {
      const joined = waitForFirstFetch(c, options.joinTimeoutMs ?? 60_000)
      joined.catch(() => {}) // awaited below; this only keeps an early failure from going unhandled
      try {
        await c.connect()
        await c.subscribe({ topics: opts.topics, fromBeginning: opts.fromBeginning ?? true })
        await c.run({ autoCommit: false, eachBatchAutoResolve: false, partitionsConsumedConcurrently: 1, eachBatch })
        await joined
      } catch (err) {
        await c.disconnect().catch(() => {})
        throw err
      }
    }

    async function revive(dead: Consumer): Promise<void> {
      await dead.disconnect().catch(() => {})
      for (let attempt = 1; !stopping; attempt++) {
        await pause(Math.min(REVIVE_MAX_DELAY_MS, retryDelayMs * 2 ** attempt))
        if (stopping) return
        consumer = createConsumer()
        try {
          await start(consumer)
          options.logger?.warn({ groupId: opts.groupId, attempt }, 'kafka consumer started again')
          state = 'running'
          return
        } catch (err) {
          options.logger?.warn({ err: err instanceof Error ? err.message : String(err), groupId: opts.groupId, attempt }, 'kafka consumer could not start again yet')
        }
      }
    }

    const pause = (ms: number) => Promise.race([stopped, new Promise<void>((r) => setTimeout(r, ms).unref())])

    async function eachBatch(payload: EachBatchPayload): Promise<void> {
      const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, uncommittedOffsets } = payload
      // One kafkajs fetch can hold far more than maxBatchSize; it is handed over in slices, and
      // each slice is committed before the next is delivered.
      for (let i = 0; i < batch.messages.length; i += maxBatch) {
        if (stopping || !payload.isRunning() || payload.isStale()) return
        const slice = batch.messages.slice(i, i + maxBatch)
        const busBatch: BusBatch = {
          topic: batch.topic,
          partition: batch.partition,
          messages: slice.map((m) => toBusMessage(batch.topic, batch.partition, m)),
          highWatermark: batch.highWatermark,
        }
        const first = BigInt(slice[0].offset)
        const last = BigInt(slice[slice.length - 1].offset)
        let done = last
        const control: BatchControl = {
          doneThrough(offset: string) {
            done = clampOffset(offset, first, last)
          },
        }
        // kafkajs heartbeats only when asked; a long handler must not cost the assignment.
        const beat = setInterval(() => heartbeat().catch(() => {}), HEARTBEAT_MS)
        try {
          await opts.onBatch(busBatch, control)
        } catch (err) {
          safeOnError(opts, err, busBatch)
          if (isPermanentPublishError(err) && options.onPermanentError) {
            // Not resolved: the batch stays for a run after the cause is fixed.
            stopping = true
            options.onPermanentError(err)
            return
          }
          // Not resolving is enough: kafkajs fetches each partition from its last resolved
          // offset, so the same messages come back on the next fetch.
          await pause(retryDelayMs)
          return
        } finally {
          clearInterval(beat)
        }
        if (done >= first) {
          resolveOffset(done.toString())
          await commitOffsetsIfNecessary(uncommittedOffsets())
        }
        if (done < last) {
          // The rest is fetched again from the resolved offset. Nothing done at all means the
          // handler waits for more: do not spin on the same messages.
          if (done < first) await pause(retryDelayMs)
          return
        }
        await heartbeat()
      }
    }

    // The topics, then the first join, outlast a broker that is away (down, restarting, its
    // coordinator not yet elected), as a running subscription does (revive): `svc start` starts its
    // consumers one after another while it already serves, and a broker gone during one of their
    // joins stopped the whole service. A broker that answers with a refusal for good, or a bus
    // closed meanwhile, throws.
    let topicsThere = false
    consumer = createConsumer()
    for (let attempt = 1; ; attempt++) {
      try {
        if (!topicsThere) await ensureTopics(opts.topics)
        topicsThere = true
        await start(consumer)
        break
      } catch (err) {
        if (closed || nonRetriableBrokerError(err)) throw err
        options.logger?.warn({ err: err instanceof Error ? err.message : String(err), groupId: opts.groupId, attempt }, 'kafka consumer could not join yet; trying again')
        await pause(Math.min(REVIVE_MAX_DELAY_MS, retryDelayMs * 2 ** attempt))
        if (closed) throw err
        consumer = createConsumer()
      }
    }
    state = 'running'

    let stopPromise: Promise<void> | null = null
    const subscription: Subscription = {
      stop() {
        if (!stopPromise) {
          stopping = true
          wakeStop()
          // disconnect() waits for the running eachBatch (which commits what was done), then
          // leaves the group so the partitions move to another member at once.
          // A replacement being started finishes (or fails) first, so the one disconnected is the last.
          stopPromise = (async () => {
            await revival
            await consumer.disconnect()
          })().finally(() => subscriptions.delete(subscription))
        }
        return stopPromise
      },
      async lag() {
        const a = await admin.get()
        const committed = await a.fetchOffsets({ groupId: opts.groupId, topics: opts.topics })
        let total = 0n
        for (const topic of opts.topics) {
          const ends = await a.fetchTopicOffsets(topic)
          const mine = assigned?.[topic]
          for (const end of ends) {
            if (assigned && !mine?.includes(end.partition)) continue
            const c = committed.find((t) => t.topic === topic)?.partitions.find((p) => p.partition === end.partition)
            const at = c && BigInt(c.offset) >= 0n ? BigInt(c.offset) : opts.fromBeginning === false ? BigInt(end.high) : BigInt(end.low)
            total += BigInt(end.high) - at
          }
        }
        return Number(total)
      },
    }
    subscriptions.add(subscription)
    return subscription
  }

  return {
    kind: 'kafka',
    ensureTopics,
    async publish(topic, records) {
      if (closed) throw new Error('kafka bus: publish() after close()')
      if (records.length === 0) return
      const limit = await messageLimit(topic)
      // Split before sending anything: a record that cannot fit fails the publish whole.
      const sends = splitByBytes(topic, records, limit, options.maxRecordsPerSend ?? DEFAULT_RECORDS_PER_SEND)
      const p = await producer.get()
      // In order, one after the other: a key's records keep their order across sends.
      for (const part of sends) {
        try {
          await p.send({
            topic,
            acks: -1,
            messages: part.map((r) => ({ key: r.key, value: r.value, ...(r.headers ? { headers: r.headers } : {}) })),
          })
        } catch (err) {
          const refused = nonRetriableBrokerError(err)
          if (!refused) throw err
          // The limit may have been lowered since it was read: the next publish reads it again.
          limits.delete(topic)
          throw new PublishRefusedError(topic, refused.type, `${refused.message} (a send of ${part.length} records; the topic's max.message.bytes read as ${limit.toLocaleString('en-US')})`, { cause: err })
        }
      }
    },
    subscribe,
    async endOffset(topic) {
      const a = await admin.get()
      return (await a.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0)
    },
    async ping() {
      const a = await withTimeout(admin.get(), 5_000, 'kafka ping: connect timed out')
      await withTimeout(a.describeCluster(), 5_000, 'kafka ping: no answer')
    },
    async close() {
      closed = true
      await Promise.all([...subscriptions].map((s) => s.stop()))
      await Promise.all([producer.close(), admin.close()])
    },
  }
}

/** The declared settings a topic is created with (core/bus/topics.ts); none for an undeclared topic. */
function declaredConfig(topic: string): Array<{ name: string; value: string }> {
  const d = declaredTopicSettings(topic)
  return d ? [{ name: 'retention.ms', value: String(d.retentionMs) }, { name: 'max.message.bytes', value: String(d.maxMessageBytes) }] : []
}

/** A client connected on first use and shared; a failed connect is forgotten, so the next use retries. */
function lazyConnection<C extends { connect(): Promise<void>; disconnect(): Promise<void> }>(create: () => C) {
  let connected: Promise<C> | null = null
  return {
    get(): Promise<C> {
      if (!connected) {
        const c = create()
        connected = c.connect().then(
          () => c,
          (err: unknown) => {
            connected = null
            throw err
          },
        )
      }
      return connected
    },
    /** Disconnect if connected; errors are ignored (closing). */
    async close(): Promise<void> {
      const c = connected
      connected = null
      await c?.then((x) => x.disconnect()).catch(() => {})
    },
  }
}

// Resolves after the consumer joined its group and fetched once: by then its start offsets
// are resolved, so a record published afterwards is seen even without fromBeginning.
function waitForFirstFetch(consumer: Consumer, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let joined = false
    const timer = setTimeout(() => finish(new Error(`kafka consumer did not join within ${timeoutMs} ms`)), timeoutMs)
    timer.unref()
    const offJoin = consumer.on(consumer.events.GROUP_JOIN, () => (joined = true))
    const offFetch = consumer.on(consumer.events.FETCH, () => joined && finish())
    // A retriable crash (e.g. "the coordinator is loading" on a fresh broker) is followed by
    // kafkajs's own restart and rejoin: keep waiting for that.
    const offCrash = consumer.on(consumer.events.CRASH, (e) => !e.payload.restart && finish(e.payload.error))
    function finish(err?: Error): void {
      clearTimeout(timer)
      offJoin()
      offFetch()
      offCrash()
      if (err) reject(err)
      else resolve()
    }
  })
}

function toBusMessage(topic: string, partition: number, m: KafkaMessage): BusMessage {
  const headers = toHeaders(m.headers)
  return {
    topic,
    partition,
    offset: m.offset,
    timestamp: Number(m.timestamp),
    key: m.key ? m.key.toString('utf8') : null,
    value: m.value ? m.value.toString('utf8') : '',
    ...(headers ? { headers } : {}),
  }
}

function toHeaders(h: IHeaders | undefined): Record<string, string> | undefined {
  if (!h) return undefined
  const out: Record<string, string> = {}
  let any = false
  for (const [k, v] of Object.entries(h)) {
    const one = Array.isArray(v) ? v[0] : v
    if (one === undefined) continue
    out[k] = one.toString()
    any = true
  }
  return any ? out : undefined
}

function safeOnError(opts: SubscribeOptions, err: unknown, batch: BusBatch): void {
  try {
    opts.onError?.(err, batch)
  } catch {
    // A failing error hook must not stop redelivery.
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
  ]).finally(() => clearTimeout(timer))
}

function toKafkaLevel(level: NonNullable<KafkaBusOptions['logLevel']>): KafkaLogLevel {
  return { error: KafkaLogLevel.ERROR, warn: KafkaLogLevel.WARN, info: KafkaLogLevel.INFO, debug: KafkaLogLevel.DEBUG }[level]
}

function forwardTo(logger: BusLogger) {
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, timestamp: _ignored, ...extra } = log
      const fields = { ...extra, kafkaNamespace: namespace }
      if (level === KafkaLogLevel.ERROR) logger.error(fields, message)
      else if (level === KafkaLogLevel.WARN) logger.warn(fields, message)
      else if (level === KafkaLogLevel.INFO) logger.info(fields, message)
      else logger.debug(fields, message)
    }
}
