/**
 * The stream bus: one interface, two implementations (Kafka via kafkajs, and in-process).
 * Delivery is at-least-once. A consumer's offsets advance only when its batch handler
 * resolves, so a handler that throws (or a process that dies) sees the same messages again.
 */

export interface BusRecord {
  /** Partitioning key; records with one key keep their order. */
  key: string | null
  value: string
  headers?: Record<string, string>
}

export interface BusMessage extends BusRecord {
  topic: string
  partition: number
  /** Offset within the partition, as a decimal string (Kafka offsets exceed 2^53 in theory). */
  offset: string
  /** Producer time, ms since epoch. */
  timestamp: number
}

export interface BusBatch {
  topic: string
  partition: number
  /** Messages in offset order, contiguous within the partition. */
  messages: BusMessage[]
  /** Offset of the next message the partition will receive (log end), for lag. */
  highWatermark: string
}

export interface BatchControl {
  /**
   * Hold back part of the batch: only messages up to and including `offset` count as done.
   * The rest are delivered again (possibly with newer messages) in a later batch.
   * Without a call, the whole batch counts as done when the handler resolves.
   */
  doneThrough(offset: string): void
}

export interface SubscribeOptions {
  groupId: string
  topics: string[]
  /** Where a group with no committed offset starts. Default: the beginning. */
  fromBeginning?: boolean
  /** Upper bound on messages per delivered batch (default DEFAULT_MAX_BATCH). */
  maxBatchSize?: number
  /**
   * Called with each batch. Offsets are committed only after it resolves.
   * A throw stops nothing: the same messages are delivered again after a short pause.
   */
  onBatch(batch: BusBatch, control: BatchControl): Promise<void>
  /** Called when a handler throws (for logging); the batch is then retried. */
  onError?(err: unknown, batch: BusBatch): void
}

export interface Subscription {
  /** Stop fetching, wait for the running handler, commit what was done. */
  stop(): Promise<void>
  /** Total messages not yet done across assigned partitions (log end - committed). */
  lag(): Promise<number>
}

export interface Bus {
  readonly kind: 'memory' | 'kafka'
  /** Create topics that do not exist (idempotent). */
  ensureTopics(topics: string[]): Promise<void>
  publish(topic: string, records: BusRecord[]): Promise<void>
  subscribe(opts: SubscribeOptions): Promise<Subscription>
  /** Cheap liveness check for /health. */
  ping(): Promise<void>
  /**
   * How many records the topic has received in all (Kafka: its partitions' end offsets summed),
   * for /health to see the bus advance while the served data does not. Absent on the in-process
   * bus, whose producer and consumers share one process.
   */
  endOffset?(topic: string): Promise<number>
  close(): Promise<void>
}

/** Messages per batch when a subscription names no maxBatchSize. */
export const DEFAULT_MAX_BATCH = 500
