import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { plannedTopics } from '../../infra/kafka/topics.ts'
import { DEAD_LETTER_RETENTION_HOURS, deadLetterTopic, namespaced, TOPIC_SPECS, TOPICS } from '../../pipelines/topics.ts'
import { kafkaBrokerList, requireKafkaBrokers } from '../setup/services.ts'
import { until } from '../setup/until.ts'

const root = join(import.meta.dirname, '../..')
const ns = `topics${randomBytes(4).toString('hex')}`
const kafka = new Kafka({ clientId: 'topics-test', brokers: kafkaBrokerList(), logLevel: logLevel.NOTHING })
const admin = kafka.admin()
const partitionsOf = new Map<string, number>()

function runScript(): { created: string[]; grown: string[]; configured: string[] } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'infra/kafka/topics.ts', '--namespace', ns], {
    cwd: root,
    env: { ...process.env, KAFKA_BROKERS: requireKafkaBrokers() },
    encoding: 'utf8',
  })
  return JSON.parse(out.trim().split('\n').pop()!)
}

beforeAll(async () => {
  await admin.connect()
  // A topic that exists already, smaller and with another retention than declared.
  await admin.createTopics({ topics: [{ topic: namespaced(ns, TOPICS.tgSightings), numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '60000' }] }], waitForLeaders: true })
})
afterAll(async () => {
  await admin.deleteTopics({ topics: plannedTopics(ns).map((t) => t.topic) }).catch(() => {})
  await admin.disconnect()
})

describe('infra/kafka/topics.ts against the real broker', () => {
  it('creates every topic and its dead-letter topic with the declared partitions and retention, grows and reconfigures an existing one, and is idempotent', { timeout: 120_000 }, async () => {
    const first = runScript()
    const planned = plannedTopics(ns)
    expect(planned.length).toBe(2 * Object.keys(TOPIC_SPECS).length)
    const sightings = namespaced(ns, TOPICS.tgSightings)
    expect(first.created.sort()).toEqual(planned.map((t) => t.topic).filter((t) => t !== sightings).sort())
    expect(first.grown).toEqual([sightings])

    // Partition counts as a fresh client sees them (metadata reaches every client within moments).
    const partitions = await until('the declared partition counts', async () => {
      const fresh = kafka.admin()
      await fresh.connect()
      try {
        const { topics } = await fresh.fetchTopicMetadata({ topics: planned.map((t) => t.topic) })
        const counts = new Map(topics.map((m) => [m.name, m.partitions.length]))
        return planned.every((t) => counts.get(t.topic) === t.partitions) ? counts : undefined
      } finally {
        await fresh.disconnect()
      }
    }, 20_000)
    for (const [t, n] of partitions) partitionsOf.set(t, n)
    expect(partitions.get(sightings)).toBe(TOPIC_SPECS[TOPICS.tgSightings].partitions)

    // Retention as the broker describes it (an altered config, like metadata, is applied within moments).
    const retention = await until('the declared retentions', async () => {
      const configs = await admin.describeConfigs({ includeSynonyms: false, resources: planned.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: t.topic, configNames: ['retention.ms'] })) })
      const values = new Map(configs.resources.map((r) => [r.resourceName, Number(r.configEntries.find((e) => e.configName === 'retention.ms')!.configValue)]))
      return planned.every((t) => values.get(t.topic) === t.retentionMs) ? values : undefined
    }, 20_000)
    for (const t of planned) expect(retention.get(t.topic), t.topic).toBe(t.retentionMs)
    const dlq = planned.find((t) => t.topic === deadLetterTopic(sightings))!
    expect(dlq.retentionMs).toBe(DEAD_LETTER_RETENTION_HOURS * 3_600_000)

    const again = runScript()
    expect(again.created).toEqual([])
    expect(again.grown).toEqual([])
    expect(again.configured.length).toBe(planned.length)
  })

  it('a token-keyed topic keeps each token\'s records in one partition, in order, across its partitions', { timeout: 60_000 }, async () => {
    const topic = namespaced(ns, TOPICS.tgSightings)
    const producer = kafka.producer()
    // The producer partitions by key over the partitions it sees: all of them.
    expect(partitionsOf.get(topic)).toBe(TOPIC_SPECS[TOPICS.tgSightings].partitions)
    await producer.connect()
    const tokens = Array.from({ length: 12 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`)
    const sent = tokens.flatMap((token) => Array.from({ length: 10 }, (_, seq) => ({ key: token, value: JSON.stringify({ token, seq }) })))
    // Interleaved across tokens, in several sends.
    const interleaved = Array.from({ length: 10 }, (_, seq) => sent.filter((m) => JSON.parse(m.value).seq === seq))
    for (const batch of interleaved) await producer.send({ topic, acks: -1, messages: batch })
    await producer.disconnect()

    const seen = new Map<string, Array<{ partition: number; seq: number }>>()
    const consumer = kafka.consumer({ groupId: `${ns}-order` })
    await consumer.connect()
    await consumer.subscribe({ topic, fromBeginning: true })
    let count = 0
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          const { token, seq } = JSON.parse(message.value!.toString()) as { token: string; seq: number }
          seen.set(token, [...(seen.get(token) ?? []), { partition, seq }])
          if (++count === sent.length) resolve()
        },
      })
    })
    await consumer.disconnect()
    const partitionsUsed = new Set<number>()
    for (const token of tokens) {
      const got = seen.get(token)!
      expect(new Set(got.map((g) => g.partition)).size, token).toBe(1)
      expect(got.map((g) => g.seq)).toEqual([...Array(10).keys()])
      partitionsUsed.add(got[0]!.partition)
    }
    expect(partitionsUsed.size).toBeGreaterThan(1)
  })
})
