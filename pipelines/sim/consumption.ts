import type { Bus, Subscription } from '../../core/bus/types.ts'

/**
 * How far the in-process consumers of a topic have got, for a producer that must know when what
 * it published is stored: the in-process bus keeps nothing across a restart, so a record is
 * safe only once its consumer has handled it (consumers commit after their insert).
 *
 * Wraps a bus: counts the records published through it per topic, and keeps the subscriptions
 * made through it. A topic's consumed count is what was published minus its subscription's lag.
 */
export interface ConsumptionTracker {
  bus: Bus
  /** Records of `topic` published through this bus and done by its consumer; null without a consumer. */
  consumed(topic: string): Promise<number | null>
}

export function trackConsumption(inner: Bus): ConsumptionTracker {
  const published = new Map<string, number>()
  const consumers = new Map<string, Subscription[]>()
  const bus: Bus = {
    kind: inner.kind,
    ensureTopics: (topics) => inner.ensureTopics(topics),
    async publish(topic, records) {
      await inner.publish(topic, records)
      published.set(topic, (published.get(topic) ?? 0) + records.length)
    },
    async subscribe(opts) {
      const sub = await inner.subscribe(opts)
      // Lag is per subscription, across its topics: only single-topic ones measure one topic.
      if (opts.topics.length === 1) {
        const [topic] = opts.topics as [string]
        consumers.set(topic, [...(consumers.get(topic) ?? []), sub])
        const stop = sub.stop.bind(sub)
        sub.stop = async () => {
          consumers.set(topic, (consumers.get(topic) ?? []).filter((s) => s !== sub))
          await stop()
        }
      }
      return sub
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  }
  return {
    bus,
    async consumed(topic) {
      const subs = consumers.get(topic) ?? []
      if (subs.length === 0) return null
      // Several groups on one topic: the slowest decides.
      const lags = await Promise.all(subs.map((s) => s.lag()))
      return (published.get(topic) ?? 0) - Math.max(...lags)
    },
  }
}
