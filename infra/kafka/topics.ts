/**
 * Creates (or brings up to date) every bus topic and its dead-letter sibling on a Kafka
 * cluster, as `pipelines/topics.ts` declares them (TOPIC_SPECS): partitions, retention,
 * replication. Through the kafkajs admin client; safe to run again: existing topics are grown
 * to the declared partition count (never shrunk) and get the declared retention.
 *
 *   npx tsx infra/kafka/topics.ts [--brokers host:port,...] [--namespace NS] [--replication N]
 *
 * Brokers default to KAFKA_BROKERS, the namespace to BUS_NAMESPACE. Prints one JSON line.
 */
import { Kafka, logLevel, type Admin, type ITopicConfig } from 'kafkajs'
import { parseArgs } from 'node:util'
import { DEAD_LETTER_RETENTION_HOURS, deadLetterTopic, namespaced, TOPIC_SPECS, type TopicSpec } from '../../pipelines/topics.ts'

export interface PlannedTopic {
  topic: string
  partitions: number
  retentionMs: number
  /** The message key (documentation: what publishers key by). */
  key: string
  deadLetterOf?: string
}

/** Every topic of the namespace with its layout; a dead-letter topic has one partition. */
export function plannedTopics(namespace = '', specs: Record<string, TopicSpec> = TOPIC_SPECS): PlannedTopic[] {
  return Object.entries(specs).flatMap(([name, spec]) => {
    const topic = namespaced(namespace, name)
    return [
      { topic, partitions: spec.partitions, retentionMs: spec.retentionHours * 3_600_000, key: spec.key },
      { topic: deadLetterTopic(topic), partitions: 1, retentionMs: DEAD_LETTER_RETENTION_HOURS * 3_600_000, key: `as on ${topic}`, deadLetterOf: topic },
    ]
  })
}

export interface ApplyResult {
  created: string[]
  grown: string[]
  configured: string[]
}

export async function applyTopics(admin: Admin, opts: { namespace?: string; replication?: number } = {}): Promise<ApplyResult> {
  const replication = opts.replication ?? 1
  const planned = plannedTopics(opts.namespace ?? '')
  const existing = new Set(await admin.listTopics())
  const config = (t: PlannedTopic) => [
    { name: 'retention.ms', value: String(t.retentionMs) },
    { name: 'cleanup.policy', value: 'delete' },
    ...(replication > 1 ? [{ name: 'min.insync.replicas', value: String(Math.min(2, replication)) }] : []),
  ]
  const missing = planned.filter((t) => !existing.has(t.topic))
  if (missing.length) {
    const topics: ITopicConfig[] = missing.map((t) => ({ topic: t.topic, numPartitions: t.partitions, replicationFactor: replication, configEntries: config(t) }))
    await admin.createTopics({ topics, waitForLeaders: true })
  }
  const present = planned.filter((t) => existing.has(t.topic))
  const result: ApplyResult = { created: missing.map((t) => t.topic), grown: [], configured: [] }
  if (present.length === 0) return result
  const { topics } = await admin.fetchTopicMetadata({ topics: present.map((t) => t.topic) })
  const grow = present.filter((t) => (topics.find((m) => m.name === t.topic)?.partitions.length ?? 0) < t.partitions)
  if (grow.length) {
    await admin.createPartitions({ topicPartitions: grow.map((t) => ({ topic: t.topic, count: t.partitions })) })
    result.grown = grow.map((t) => t.topic)
  }
  await admin.alterConfigs({ validateOnly: false, resources: present.map((t) => ({ type: 2 /* TOPIC */, name: t.topic, configEntries: config(t) })) })
  result.configured = present.map((t) => t.topic)
  return result
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { brokers: { type: 'string' }, namespace: { type: 'string' }, replication: { type: 'string' } } })
  const brokers = (values.brokers ?? process.env.KAFKA_BROKERS ?? '').split(',').map((b) => b.trim()).filter(Boolean)
  if (brokers.length === 0) {
    console.error('infra/kafka/topics.ts: no brokers (--brokers or KAFKA_BROKERS)')
    process.exit(2)
  }
  const admin = new Kafka({ clientId: 'svc-topics', brokers, logLevel: logLevel.WARN }).admin()
  await admin.connect()
  try {
    const r = await applyTopics(admin, { namespace: values.namespace ?? process.env.BUS_NAMESPACE ?? '', replication: values.replication ? Number(values.replication) : 1 })
    console.log(JSON.stringify(r))
  } finally {
    await admin.disconnect()
  }
}
