/**
 * Creates (or brings up to date) every bus topic and its dead-letter sibling on a Kafka
 * cluster, as `core/bus/topics.ts` declares them (TOPIC_SPECS, the one declaration the Kafka
 * bus creates topics from too): partitions, retention, max.message.bytes, replication. Through
 * the kafkajs admin client; safe to run again:
 *
 * - sizes (retention.ms, max.message.bytes) are raised to the declared value, never lowered: a
 *   value an operator raised stays, and so does every other setting an operator put on a topic
 *   (Kafka's AlterConfigs replaces a topic's whole set, so the set is read back and merged);
 * - an existing topic with fewer partitions than declared is left alone and reported as refused,
 *   with how to migrate: a key maps to a partition by the partition count, so growing it sends a
 *   key's new records to another partition than its old ones, and a consumer can read them out
 *   of order. `--grow-partitions TOPIC,...` grows the named ones once their consumers have
 *   drained.
 *
 *   npx tsx infra/kafka/topics.ts [--brokers host:port,...] [--namespace NS] [--replication N] [--grow-partitions T1,T2]
 *
 * Brokers default to KAFKA_BROKERS, the namespace to BUS_NAMESPACE. Prints one JSON line; exits
 * 1 (after applying everything else) when a topic was refused.
 */
import { Kafka, logLevel, type Admin, type ITopicConfig } from 'kafkajs'
import { parseArgs } from 'node:util'
import { declaredTopicSettings, deadLetterTopic, namespaced, TOPIC_SPECS } from '../../core/bus/topics.ts'

export interface PlannedTopic {
  topic: string
  partitions: number
  retentionMs: number
  maxMessageBytes: number
  /** The message key (documentation: what publishers key by). */
  key: string
  deadLetterOf?: string
}

/** Every topic of the namespace with its layout; a dead-letter topic has one partition. */
export function plannedTopics(namespace = ''): PlannedTopic[] {
  return Object.entries(TOPIC_SPECS).flatMap(([name, spec]) => {
    const topic = namespaced(namespace, name)
    const dlq = deadLetterTopic(topic)
    return [
      { topic, ...declaredTopicSettings(topic)!, key: spec.key },
      { topic: dlq, ...declaredTopicSettings(dlq)!, key: `as on ${topic}`, deadLetterOf: topic },
    ]
  })
}

/** An existing topic whose partition count was not raised to the declared one. */
export interface RefusedTopic {
  topic: string
  partitions: number
  declared: number
  /** What to do instead, for the operator. */
  migrate: string
}

/** A setting left above the declared value (an operator raised it). */
export interface KeptSetting {
  topic: string
  name: string
  value: string
  declared: string
}

export interface ApplyResult {
  created: string[]
  grown: string[]
  /** Existing topics whose settings were changed. */
  configured: string[]
  kept: KeptSetting[]
  refused: RefusedTopic[]
}

export interface ApplyOptions {
  namespace?: string
  replication?: number
  /** Existing topics whose partitions may grow to the declared count (their consumers have drained). */
  growPartitions?: string[]
}

/** kafkajs's ConfigResourceTypes.TOPIC (its named export is missing under ESM). */
const TOPIC_RESOURCE = 2

/** Settings that are sizes: only ever raised. -1 is unlimited (retention). */
const SIZES = ['retention.ms', 'max.message.bytes'] as const

function declaredConfig(t: PlannedTopic, replication: number): Record<string, string> {
  return {
    'retention.ms': String(t.retentionMs),
    'max.message.bytes': String(t.maxMessageBytes),
    'cleanup.policy': 'delete',
    ...(replication > 1 ? { 'min.insync.replicas': String(Math.min(2, replication)) } : {}),
  }
}

const larger = (a: string, b: string) => (Number(a) === -1 || (Number(b) !== -1 && Number(a) >= Number(b)) ? a : b)

export function migrationAdvice(topic: string, partitions: number, declared: number): string {
  return (
    `${topic} has ${partitions} partition${partitions === 1 ? '' : 's'}, ${declared} declared; not grown: a key maps to a partition by the count, ` +
    `so growing it sends a key's new records to another partition than its old ones and a consumer can read them out of order. ` +
    `To migrate: stop the roles that publish to ${topic}, wait until its consumer groups' lag is 0, then run ` +
    `npx tsx infra/kafka/topics.ts --grow-partitions ${topic} (same --brokers/--namespace), and start the roles again.`
  )
}

export async function applyTopics(admin: Admin, opts: ApplyOptions = {}): Promise<ApplyResult> {
  const replication = opts.replication ?? 1
  const planned = plannedTopics(opts.namespace ?? '')
  const existing = new Set(await admin.listTopics())
  const missing = planned.filter((t) => !existing.has(t.topic))
  if (missing.length) {
    const topics: ITopicConfig[] = missing.map((t) => ({
      topic: t.topic,
      numPartitions: t.partitions,
      replicationFactor: replication,
      configEntries: Object.entries(declaredConfig(t, replication)).map(([name, value]) => ({ name, value })),
    }))
    await admin.createTopics({ topics, waitForLeaders: true })
  }
  const present = planned.filter((t) => existing.has(t.topic))
  const result: ApplyResult = { created: missing.map((t) => t.topic), grown: [], configured: [], kept: [], refused: [] }
  if (present.length === 0) return result

  const { topics } = await admin.fetchTopicMetadata({ topics: present.map((t) => t.topic) })
  const grow: PlannedTopic[] = []
  for (const t of present) {
    const has = topics.find((m) => m.name === t.topic)?.partitions.length ?? 0
    if (has >= t.partitions) continue
    if (opts.growPartitions?.includes(t.topic)) grow.push(t)
    else result.refused.push({ topic: t.topic, partitions: has, declared: t.partitions, migrate: migrationAdvice(t.topic, has, t.partitions) })
  }
  if (grow.length) {
    await admin.createPartitions({ topicPartitions: grow.map((t) => ({ topic: t.topic, count: t.partitions })) })
    result.grown = grow.map((t) => t.topic)
  }

  const described = await admin.describeConfigs({ includeSynonyms: false, resources: present.map((t) => ({ type: TOPIC_RESOURCE, name: t.topic })) })
  const resources = []
  for (const t of present) {
    const entries = described.resources.find((r) => r.resourceName === t.topic)?.configEntries ?? []
    const effective = new Map(entries.map((e) => [e.configName, e.configValue]))
    // The topic's own settings (source 1: set on the topic), which AlterConfigs would otherwise drop.
    const own = new Map(entries.filter((e) => e.configSource === 1 && !e.isSensitive).map((e) => [e.configName, e.configValue]))
    const next = new Map(own)
    for (const [name, declared] of Object.entries(declaredConfig(t, replication))) {
      const current = effective.get(name)
      if ((SIZES as readonly string[]).includes(name) && current !== undefined && larger(current, declared) === current && current !== declared) {
        result.kept.push({ topic: t.topic, name, value: current, declared })
        continue
      }
      next.set(name, declared)
    }
    const changed = [...next].some(([k, v]) => own.get(k) !== v) || own.size !== next.size
    if (!changed) continue
    resources.push({ type: TOPIC_RESOURCE, name: t.topic, configEntries: [...next].map(([name, value]) => ({ name, value })) })
    result.configured.push(t.topic)
  }
  if (resources.length) await admin.alterConfigs({ validateOnly: false, resources })
  return result
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { brokers: { type: 'string' }, namespace: { type: 'string' }, replication: { type: 'string' }, 'grow-partitions': { type: 'string' } } })
  const brokers = (values.brokers ?? process.env.KAFKA_BROKERS ?? '').split(',').map((b) => b.trim()).filter(Boolean)
  if (brokers.length === 0) {
    console.error('infra/kafka/topics.ts: no brokers (--brokers or KAFKA_BROKERS)')
    process.exit(2)
  }
  const admin = new Kafka({ clientId: 'svc-topics', brokers, logLevel: logLevel.WARN }).admin()
  await admin.connect()
  let refused = 0
  try {
    const r = await applyTopics(admin, {
      namespace: values.namespace ?? process.env.BUS_NAMESPACE ?? '',
      replication: values.replication ? Number(values.replication) : 1,
      growPartitions: (values['grow-partitions'] ?? '').split(',').map((t) => t.trim()).filter(Boolean),
    })
    for (const t of r.refused) console.error(`infra/kafka/topics.ts: refused: ${t.migrate}`)
    refused = r.refused.length
    console.log(JSON.stringify(r))
  } finally {
    await admin.disconnect()
  }
  if (refused > 0) process.exit(1)
}
