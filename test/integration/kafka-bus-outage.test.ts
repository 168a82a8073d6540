import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKafkaBus, type BusLogger } from '../../core/bus/kafka-bus.ts'
import type { Bus, Subscription } from '../../core/bus/types.ts'
import { startOwnKafka, type OwnKafka } from '../setup/own-kafka.ts'
import { until } from '../setup/until.ts'

/**
 * The Kafka bus through a broker outage, on a broker of this file's own. While the broker is away
 * kafkajs's consumers crash and restart; one that restarts while the broker is still down, or
 * just as it comes back with its group coordinator loading, fails with "Failed to find group
 * coordinator", which kafkajs counts as final. Every subscription must outlive that: after the
 * broker is back, each group receives what is published, without anyone restarting the process.
 * Whether kafkajs gives a consumer up depends on when its heartbeat meets the broker's shutdown, so
 * not every run sees it (the svc-level broker-faults test, with fourteen consumers, mostly does):
 * what is asserted is the outcome, and that every consumer given up was started again.
 */

const GROUPS = 8
const OUTAGE_MS = 25_000

let kafka: OwnKafka
beforeAll(async () => {
  kafka = await startOwnKafka()
}, 180_000)
afterAll(async () => {
  await kafka?.dispose()
}, 60_000)

/** A logger keeping what kafkajs and the bus said, for the test to read. */
function recordingLogger(): BusLogger & { lines: Array<{ level: string; msg: string; groupId?: string }> } {
  const lines: Array<{ level: string; msg: string; groupId?: string }> = []
  const keep = (level: string) => (obj: object, msg?: string) => lines.push({ level, msg: msg ?? '', groupId: (obj as { groupId?: string }).groupId })
  return { lines, error: keep('error'), warn: keep('warn'), info: keep('info'), debug: keep('debug') }
}

describe('the Kafka bus through a broker outage', () => {
  it(`${GROUPS} consumer groups all receive what is published after the broker was down ${OUTAGE_MS / 1000} s`, { timeout: 300_000 }, async () => {
    const logger = recordingLogger()
    const bus: Bus = createKafkaBus({ brokers: [kafka.brokers], clientId: 'outage-test', logger, logLevel: 'error', retryDelayMs: 200 })
    const topic = `outage-${randomBytes(4).toString('hex')}`
    const seen: Array<Set<string>> = []
    const subscriptions: Subscription[] = []
    try {
      await bus.ensureTopics([topic])
      for (let g = 0; g < GROUPS; g++) {
        const mine = new Set<string>()
        seen.push(mine)
        subscriptions.push(
          await bus.subscribe({
            groupId: `${topic}-group-${g}`,
            topics: [topic],
            // A handler that takes a while, as a pipeline's does: the bus heartbeats meanwhile,
            // and the broker's shutdown finds the consumers in the middle of batches.
            onBatch: async (batch) => {
              await new Promise((r) => setTimeout(r, 400))
              for (const m of batch.messages) mine.add(m.value)
            },
          }),
        )
      }
      await bus.publish(topic, [{ key: null, value: 'before' }])
      await until('every group received the record published before the outage', async () => (seen.every((s) => s.has('before')) ? true : undefined), 30_000)

      // Records keep arriving up to the stop.
      let publishing = true
      const trickle = (async () => {
        for (let i = 0; publishing; i++) {
          await bus.publish(topic, [{ key: null, value: `during-${i}` }]).catch(() => {})
          await new Promise((r) => setTimeout(r, 50))
        }
      })()
      await new Promise((r) => setTimeout(r, 2_000))
      await kafka.stop()
      publishing = false
      await trickle
      await new Promise((r) => setTimeout(r, OUTAGE_MS))
      await kafka.start()

      // The producer reconnects by itself; a publish right after the restart may still be refused.
      await until('a publish after the outage', async () => bus.publish(topic, [{ key: null, value: 'after' }]).then(() => true, () => undefined), 60_000)
      await until('every group received the record published after the outage', async () => (seen.every((s) => s.has('after')) ? true : undefined), 120_000).catch((err: Error) => {
        const missing = seen.flatMap((s, g) => (s.has('after') ? [] : [g]))
        throw new Error(`${err.message}: groups ${missing.join(', ')} did not\n${logger.lines.filter((l) => l.level !== 'debug').slice(-40).map((l) => `${l.level} ${l.groupId ?? ''} ${l.msg}`).join('\n')}`)
      })

      // Where kafkajs gave a consumer up, the bus started a new one for that group.
      const givenUp = new Set(logger.lines.filter((l) => l.msg.startsWith('kafka consumer stopped on an error')).map((l) => l.groupId))
      const restarted = new Set(logger.lines.filter((l) => l.msg === 'kafka consumer started again').map((l) => l.groupId))
      expect([...givenUp].filter((g) => !restarted.has(g))).toEqual([])
      console.log(`[kafka-bus-outage] kafkajs gave up ${givenUp.size} of ${GROUPS} consumers; the bus started each again`)
    } finally {
      await Promise.all(subscriptions.map((s) => s.stop()))
      await bus.close()
    }
  })

  it('a subscription begun while the broker is down joins once it is back, and receives what is published', { timeout: 300_000 }, async () => {
    const logger = recordingLogger()
    const bus: Bus = createKafkaBus({ brokers: [kafka.brokers], clientId: 'outage-join-test', logger, logLevel: 'error', retryDelayMs: 200 })
    const topic = `outage-join-${randomBytes(4).toString('hex')}`
    const seen = new Set<string>()
    let subscription: Subscription | undefined
    try {
      await bus.ensureTopics([topic])
      await kafka.stop()
      let settled: 'joined' | Error | undefined
      const subscribing = bus.subscribe({ groupId: `${topic}-group`, topics: [topic], onBatch: async (batch) => void batch.messages.forEach((m) => seen.add(m.value)) })
      subscribing.then((s) => ((subscription = s), (settled = 'joined')), (err: Error) => (settled = err))
      // Away until kafkajs gave a join up: the subscription is still waiting, not failed.
      await until('a failed join, tried again', () => (settled instanceof Error || logger.lines.some((l) => l.msg === 'kafka consumer could not join yet; trying again') ? true : undefined), 120_000)
      expect(settled).toBeUndefined()
      await kafka.start()
      await until('the subscription joined', () => settled, 120_000)
      expect(settled).toBe('joined')
      await until('a publish after the outage', async () => bus.publish(topic, [{ key: null, value: 'after' }]).then(() => true, () => undefined), 60_000)
      await until('the record published after the outage received', () => (seen.has('after') ? true : undefined), 60_000)
    } finally {
      await subscription?.stop()
      await bus.close()
    }
  })
})
