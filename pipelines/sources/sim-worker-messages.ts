import type { BusRecord } from '../../core/bus/types.ts'
import type { InfraKind } from '../../core/infra-faults.ts'
import type { SocialCheckpoint } from '../sim/social-checkpoint.ts'
import type { SimSourceOptions, SocialCounts } from './sim-source.ts'

/**
 * What a simulated chain running in a worker thread (sim-in-worker.ts) and the process that
 * started it say to each other. Generating the world is the worker's; the bus, the checkpoints'
 * durability and the metrics stay the process's, asked for by message.
 */

/** The simulator's options that cross to the worker (plain data); the functions stay behind. */
export type SimWorkerConfig = Pick<
  SimSourceOptions,
  'chainId' | 'namespace' | 'seed' | 'blockSeconds' | 'start' | 'untilBlock' | 'chunk' | 'social' | 'prices' | 'launchpads' | 'maxAheadBlocks' | 'progressEveryMs'
> & {
  logName: string
  logLevel: string
  /** Whether the process tells the blocks its chain ingested (`ingested` messages). */
  paced: boolean
  /** Checkpoint timing, when checkpoints are taken; `durable` whether their durability is asked. */
  checkpoints?: { everyMs?: number; drainMs?: number; durable: boolean }
}

/** A request the worker waits on: its reply carries the same id. */
export type SimWorkerCall =
  | { op: 'ensureTopics'; topics: string[] }
  | { op: 'save'; checkpoint: Pick<SocialCheckpoint, 'block' | 'state'> }
  | { op: 'durable'; counts: SocialCounts }

export type FromSimWorker =
  | ({ type: 'call'; id: number } & SimWorkerCall)
  /**
   * Records to publish, in order, not waited on: the process publishes them one after another
   * (retried there until the bus takes them), and the worker's pace is the chain's ingestion.
   * `next` is the worker's next block once they are generated.
   */
  | { type: 'publish'; topic: string; records: BusRecord[]; next: number }
  | { type: 'retrying'; component: string; at: string; kind: InfraKind; message: string }
  | { type: 'retried'; consumer: string; kind: string }
  | { type: 'cleared'; component: string; at: string }
  | { type: 'ran' }
  | { type: 'failed'; message: string }
  | { type: 'stopped' }

export type ToSimWorker =
  /** The first message: what to simulate (the worker boots before the process knows it). */
  | { type: 'config'; config: SimWorkerConfig }
  | { type: 'reply'; id: number; value?: unknown; error?: { message: string; name?: string; code?: string } }
  | { type: 'ingested'; block: number }
  | { type: 'stop' }
