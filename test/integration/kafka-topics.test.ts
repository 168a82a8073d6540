import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { plannedTopics } from '../../infra/kafka/topics.ts'
import { DEAD_LETTER_RETENTION_HOURS, deadLetterTopic, KAFKA_DEFAULT_MAX_MESSAGE_BYTES, namespaced, TOPIC_SPECS, TOPICS } from '../../core/bus/topics.ts'
import { kafkaBrokerList, requireKafkaBrokers } from '../setup/services.ts'
import { until } from '../setup/until.ts'

const root = join(import.meta.dirname, '../..')
const ns = `topics${randomBytes(4).toString('hex')}`
const kafka = new Kafka({ clientId: 'topics-test', brokers: kafkaBrokerList(), logLevel: logLevel.NOTHING })
const admin = kafka.admin()
const partitionsOf = new Map<string, number>()

interface ScriptResult {
  status: number | null
  stderr: string
  out: { created: string[]; grown: string[]; configured: string[]; kept: Array<{ topic: string; name: string; value: string }>; refused: Array<{ topic: string; partitions: number; declared: number }> }
}

function runScript(...args: string[]): ScriptResult {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'infra/kafka/topics.ts', '--namespace', ns, ...args], {
    cwd: root,
    env: { ...process.env, KAFKA_BROKERS: requireKafkaBrokers() },
    encoding: 'utf8',
  })
  return { status: r.status, stderr: r.stderr, out: JSON.parse(r.stdout.trim().split('\n').pop()!) }
}

const RAISED = String(16 * 1024 * 1024)

beforeAll(async () => {
  await admin.connect()
  // Topics that exist already: one smaller and with a shorter retention than declared (as the bus
  // used to create them), one whose max.message.bytes an operator raised and gave a setting of
  // their own.
  await admin.createTopics({
    topics: [
      { topic: namespaced(ns, TOPICS.tgSightings), numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '60000' }] },
      { topic: namespaced(ns, TOPICS.chain4663Logs), numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: RAISED }, { name: 'segment.ms', value: '3600000' }] },
    ],
    waitForLeaders: true,
  })
})
afterAll(async () => {
  await admin.deleteTopics({ topics: plannedTopics(ns).map((t) => t.topic) }).catch(() => {})
  await admin.disconnect()
})

async function topicConfig(topics: string[], names: string[]): Promise<Map<string, Map<string, string>>> {
  const configs = await admin.describeConfigs({ includeSynonyms: false, resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: names })) })
  return new Map(configs.resources.map((r) => [r.resourceName, new Map(r.configEntries.map((e) => [e.configName, e.configValue]))]))
}

describe('infra/kafka/topics.ts against the real broker', () => {
  it('creates every topic and its dead-letter topic as declared, refuses to grow an existing keyed topic until told, never lowers a raised setting, and is idempotent', { timeout: 120_000 }, async () => {
    const planned = plannedTopics(ns)
    expect(planned.length).toBe(2 * Object.keys(TOPIC_SPECS).length)
    const sightings = namespaced(ns, TOPICS.tgSightings)
    const chain = namespaced(ns, TOPICS.chain4663Logs)

    const first = runScript()
    // Everything else was applied, and the refusal says how to migrate; the exit code is 1.
    expect(first.status).toBe(1)
    expect(first.out.created.sort()).toEqual(planned.map((t) => t.topic).filter((t) => t !== sightings && t !== chain).sort())
    expect(first.out.grown).toEqual([])
    expect(first.out.refused).toEqual([{ topic: sightings, partitions: 1, declared: TOPIC_SPECS[TOPICS.tgSightings].partitions, migrate: expect.any(String) }])
    expect(first.stderr).toContain(`refused: ${sightings} has 1 partition, 6 declared`)
    expect(first.stderr).toContain(`wait until its consumer groups' lag is 0, then run npx tsx infra/kafka/topics.ts --grow-partitions ${sightings}`)
    expect(first.out.kept).toEqual([{ topic: chain, name: 'max.message.bytes', value: RAISED, declared: String(8 * 1024 * 1024) }])

    const grown = runScript('--grow-partitions', sightings)
    expect(grown.status).toBe(0)
    expect(grown.out.grown).toEqual([sightings])
    expect(grown.out.refused).toEqual([])

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

    // Settings as the broker describes them (an altered config, like metadata, is applied within moments).
    const settings = await until('the declared settings', async () => {
      const c = await topicConfig(planned.map((t) => t.topic), ['retention.ms', 'max.message.bytes', 'segment.ms'])
      const want = (t: (typeof planned)[number]) => String(t.topic === chain ? RAISED : t.maxMessageBytes)
      return planned.every((t) => c.get(t.topic)?.get('retention.ms') === String(t.retentionMs) && c.get(t.topic)?.get('max.message.bytes') === want(t)) ? c : undefined
    }, 20_000)
    // The operator's raised limit and own setting survived; the short retention was raised.
    expect(settings.get(chain)!.get('max.message.bytes')).toBe(RAISED)
    expect(settings.get(chain)!.get('segment.ms')).toBe('3600000')
    expect(settings.get(sightings)!.get('retention.ms')).toBe(String(7 * 24 * 3_600_000))
    expect(settings.get(namespaced(ns, TOPICS.socialPosts))!.get('max.message.bytes')).toBe(String(KAFKA_DEFAULT_MAX_MESSAGE_BYTES))
    const dlq = planned.find((t) => t.topic === deadLetterTopic(sightings))!
    expect(dlq.retentionMs).toBe(DEAD_LETTER_RETENTION_HOURS * 3_600_000)

    const again = runScript()
    expect(again.status).toBe(0)
    expect(again.out.created).toEqual([])
    expect(again.out.grown).toEqual([])
    expect(again.out.configured).toEqual([])
    expect(again.out.refused).toEqual([])
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
