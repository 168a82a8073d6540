import { randomBytes } from 'node:crypto'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKafkaBus } from '../../core/bus/kafka-bus.ts'
import { isPermanentPublishError, PublishRefusedError, RecordTooLargeError } from '../../core/bus/publish-errors.ts'
import type { Bus, BusRecord } from '../../core/bus/types.ts'
import { createConsumer } from '../../pipelines/consumer/create-consumer.ts'
import { createLogger } from '../../core/logger.ts'
import { createMetrics } from '../../core/metrics.ts'
import { chainTopic, deadLetterTopic, namespaced } from '../../core/bus/topics.ts'
import { z } from 'zod'
import { kafkaBrokerList, requireKafkaBrokers } from '../setup/services.ts'
import { runSvc } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'
import { until } from '../setup/until.ts'

/**
 * Producers against a topic whose max.message.bytes is small, on the real broker: a publish is
 * split below the limit, a record that cannot fit fails naming its size and the limit, and a
 * refusal the broker will repeat stops the role instead of being retried forever.
 */
const ns = `limits${randomBytes(4).toString('hex')}`
const LIMIT = 20_000
const kafka = new Kafka({ clientId: 'publish-limits-test', brokers: kafkaBrokerList(), logLevel: logLevel.NOTHING })
const admin = kafka.admin()
const buses: Bus[] = []
const topics: string[] = []

async function smallTopic(name: string, limit = LIMIT): Promise<string> {
  const topic = namespaced(ns, name)
  topics.push(topic)
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: String(limit) }] }], waitForLeaders: true })
  return topic
}

function bus(extra: Partial<Parameters<typeof createKafkaBus>[0]> = {}): Bus {
  const b = createKafkaBus({ brokers: kafkaBrokerList(), clientId: 'publish-limits-test', retryDelayMs: 50, ...extra })
  buses.push(b)
  return b
}

const records = (n: number, bytes: number, key = 'k'): BusRecord[] =>
  Array.from({ length: n }, (_, i) => ({ key, value: JSON.stringify({ i, pad: 'x'.repeat(bytes) }) }))

async function readAll(topic: string, want: number): Promise<number[]> {
  const seen: number[] = []
  const consumer = kafka.consumer({ groupId: `${ns}-read-${randomBytes(3).toString('hex')}` })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  await consumer.run({ eachMessage: async ({ message }) => void seen.push((JSON.parse(message.value!.toString()) as { i: number }).i) })
  await until(`${want} records on ${topic}`, () => (seen.length >= want ? true : undefined), 30_000)
  await consumer.disconnect()
  return seen
}

beforeAll(async () => {
  await admin.connect()
})
afterAll(async () => {
  await Promise.all(buses.map((b) => b.close()))
  await admin.deleteTopics({ topics }).catch(() => {})
  await admin.disconnect()
})

describe('the Kafka bus against a topic\'s max.message.bytes', () => {
  it('publish() splits a batch larger than the topic takes into sends below it, in order', { timeout: 60_000 }, async () => {
    const topic = await smallTopic('split')
    const batch = records(100, 1_000)
    // The same records in one send are refused by the broker: the split is what makes them go.
    const producer = kafka.producer()
    await producer.connect()
    const whole = await producer.send({ topic, acks: -1, messages: batch }).catch((e: { type?: string }) => e)
    await producer.disconnect()
    expect((whole as { type?: string }).type).toBe('MESSAGE_TOO_LARGE')

    await bus().publish(topic, batch)
    expect(await readAll(topic, 100)).toEqual([...Array(100).keys()])
  })

  it('a record that cannot fit fails the publish whole, naming its size and the limit', { timeout: 60_000 }, async () => {
    const topic = await smallTopic('oversize')
    const big = { key: 'k', value: 'y'.repeat(30_000) }
    const err = await bus().publish(topic, [...records(3, 100), big]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RecordTooLargeError)
    expect(isPermanentPublishError(err)).toBe(true)
    expect((err as Error).message).toContain(`a record of 30,041 bytes cannot be published on ${topic}: the topic takes at most 20,000 bytes per message`)
    // Nothing of that publish went out.
    const offsets = await admin.fetchTopicOffsets(topic)
    expect(offsets.reduce((n, p) => n + Number(p.high), 0)).toBe(0)
  })

  it('a broker refusal that is not retriable (MESSAGE_TOO_LARGE after the limit was lowered) is a permanent error, and the next publish uses the new limit', { timeout: 60_000 }, async () => {
    const topic = await smallTopic('lowered')
    const b = bus()
    await b.publish(topic, records(1, 100))
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: topic, configEntries: [{ name: 'max.message.bytes', value: '2000' }] }] })
    const refused = await until('the lowered limit in force', async () => {
      const e = await b.publish(topic, records(1, 5_000)).then(() => null, (x: unknown) => x)
      return e ?? undefined
    }, 20_000)
    expect(refused).toBeInstanceOf(PublishRefusedError)
    expect((refused as Error).message).toContain('(MESSAGE_TOO_LARGE)')
    expect(isPermanentPublishError(refused)).toBe(true)
    const next = await b.publish(topic, records(1, 5_000)).catch((e: unknown) => e)
    expect(next).toBeInstanceOf(RecordTooLargeError)
    expect((next as Error).message).toContain('at most 2,000 bytes')
  })

  it('a consumer whose sink hits a permanent publish error neither retries nor dead-letters: it hands the error to onPermanentError once and commits nothing', { timeout: 60_000 }, async () => {
    const input = await smallTopic('input', 1_000_000)
    const output = await smallTopic('output')
    topics.push(deadLetterTopic(input))
    const stops: Error[] = []
    const b = bus({ onPermanentError: (e) => void stops.push(e) })
    await b.publish(input, records(2, 10))
    let writes = 0
    const consumer = createConsumer({
      name: 'limits-test', bus: b, logger: createLogger('silent', 'limits-test'), metrics: createMetrics(), topic: input, schema: z.unknown(), maxAttempts: 3, backoffMs: 10,
      sink: {
        name: 'oversized-output',
        async write() {
          writes++
          await b.publish(output, [{ key: 'k', value: 'z'.repeat(50_000) }])
        },
      },
    })
    await consumer.start()
    await until('the permanent error reported', () => (stops.length > 0 ? true : undefined), 20_000)
    await new Promise((r) => setTimeout(r, 1_000))
    expect(stops.length).toBe(1)
    expect(stops[0]).toBeInstanceOf(RecordTooLargeError)
    expect(writes).toBe(1)
    expect(await consumer.lag()).toBe(2)
    const dead = await admin.fetchTopicOffsets(deadLetterTopic(input)).catch(() => [])
    expect(dead.reduce((n, p) => n + Number(p.high), 0)).toBe(0)
    await consumer.stop()
  })
})

describe('svc sim against a chain topic smaller than a block', () => {
  it('stops with exit 1 and the record\'s size and the limit, instead of retrying forever', { timeout: 120_000 }, async () => {
    await smallTopic(chainTopic(4663), 2_000)
    const data = tempDir('svc-limits-sim-')
    try {
      const started = Date.now()
      const r = await runSvc(['sim', '--until', '20'], { KAFKA_BROKERS: requireKafkaBrokers(), BUS_NAMESPACE: ns, DATA_DIR: data.path, REDIS_URL: '', LOG_LEVEL: 'warn' }, 90_000)
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toMatch(new RegExp(`svc: a record of [\\d,]+ bytes cannot be published on ${ns}\\.chain\\.4663\\.logs: the topic takes at most 2,000 bytes per message`))
      expect(Date.now() - started).toBeLessThan(90_000)
    } finally {
      data.cleanup()
    }
  })
})
