import type { Bus, BusRecord } from './types.ts'

/** How a process without a bus of its own reaches the one of the process beside it. */
export interface BusOwner {
  kind: Bus['kind']
  /** Whether the owner's bus counts a topic's records (Kafka does; the in-process bus does not). */
  countsRecords: boolean
  publish(topic: string, records: BusRecord[]): Promise<void>
  ensureTopics(topics: string[]): Promise<void>
  ping(): Promise<void>
  endOffset(topic: string): Promise<number>
}

/**
 * The bus of a process that only publishes, forwarded to the process that owns the bus: `svc
 * start`'s API process publishes alerts, claims and scan requests through its pipeline process's
 * bus (bin/api-process.ts), whose consumers read them as they read their own. A publish resolves
 * once the owner's bus took the records, and fails as the owner's publish failed. Nothing in such
 * a process consumes: subscribing is refused.
 */
export function createForwardingBus(owner: BusOwner): Bus {
  return {
    kind: owner.kind,
    ensureTopics: (topics) => owner.ensureTopics(topics),
    publish: (topic, records) => owner.publish(topic, records),
    subscribe: () => Promise.reject(new Error('this process forwards what it publishes to the bus of the process beside it; it consumes nothing')),
    ping: () => owner.ping(),
    ...(owner.countsRecords ? { endOffset: (topic: string) => owner.endOffset(topic) } : {}),
    close: async () => {},
  }
}
