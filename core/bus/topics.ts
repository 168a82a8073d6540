/**
 * Every bus topic, declared once, each with its dead-letter sibling. Records that can never
 * be processed (schema violations, undecodable payloads) go to `<topic>.dlq` with the reason.
 */
export const TOPICS = {
  chain4663Logs: 'chain.4663.logs',
  chain5042Logs: 'chain.5042.logs',
  socialPosts: 'social.posts',
  socialFollows: 'social.follows',
  tgSightings: 'tg.sightings',
  callerMirrors: 'social.caller_mirrors',
  solanaTrades: 'solana.trades',
  solanaUniverse: 'solana.universe',
  pricesEthUsd: 'prices.eth_usd',
  pricesSolUsd: 'prices.sol_usd',
  leaderboardClaims: 'leaderboard.claims',
  alerts: 'alerts.events',
  /** Structure and forensics scan jobs, for the scans worker (pipelines/scans/). */
  scanJobs: 'scans.jobs',
  /** The daily structure scans of watched tokens: a lane of their own, never behind callers' requests. */
  scanDailyJobs: 'scans.daily',
} as const

export type TopicName = (typeof TOPICS)[keyof typeof TOPICS]

export function deadLetterTopic(topic: string): string {
  return `${topic}.dlq`
}


/** A topic or consumer-group name within a namespace (empty namespace: the name itself). */
export function namespaced(namespace: string, name: string): string {
  return namespace ? `${namespace}.${name}` : name
}

/** The topic a chain's block records travel on. */
export function chainTopic(chainId: number): string {
  return `chain.${chainId}.logs`
}

/**
 * How each topic is laid out on a Kafka cluster (`infra/kafka/topics.ts` applies it). The key
 * is what publishers put in the message key: Kafka keeps order per partition and a key always
 * maps to one partition, so the order that matters (a chain's blocks, a token's sightings and
 * trades, an author's posts) holds whatever the partition count. Partitions bound how many
 * consumers of one group share a topic.
 */
export interface TopicSpec {
  partitions: number
  /** What the message key is. */
  key: string
  retentionHours: number
  /**
   * The largest record batch the topic takes (Kafka's `max.message.bytes`). Producers split
   * their sends below the limit the broker reports (core/bus/byte-batches.ts), so this
   * only has to exceed the largest single record. Default: Kafka's own, 1,048,588.
   */
  maxMessageBytes?: number
}

/** Kafka's default `max.message.bytes` (and the broker's `message.max.bytes`). */
export const KAFKA_DEFAULT_MAX_MESSAGE_BYTES = 1_048_588

const DAY = 24

export const TOPIC_SPECS: Record<TopicName, TopicSpec> = {
  // One sequence per chain: blocks in order, a reorg after what it replaces.
  // A block is one record, and a busy block of a real chain can hold thousands of logs.
  [TOPICS.chain4663Logs]: { partitions: 1, key: 'chain id (all blocks of a chain in order)', retentionHours: 7 * DAY, maxMessageBytes: 8 * 1024 * 1024 },
  [TOPICS.chain5042Logs]: { partitions: 1, key: 'chain id (all blocks of a chain in order)', retentionHours: 7 * DAY, maxMessageBytes: 8 * 1024 * 1024 },
  [TOPICS.socialPosts]: { partitions: 6, key: 'author handle', retentionHours: 7 * DAY },
  [TOPICS.socialFollows]: { partitions: 6, key: 'account', retentionHours: 7 * DAY },
  [TOPICS.tgSightings]: { partitions: 6, key: 'token address (per-token order)', retentionHours: 7 * DAY },
  [TOPICS.callerMirrors]: { partitions: 3, key: 'caller handle', retentionHours: 7 * DAY },
  [TOPICS.solanaTrades]: { partitions: 6, key: 'wallet (a wallet\'s trades in order, as its FIFO needs)', retentionHours: 7 * DAY },
  [TOPICS.solanaUniverse]: { partitions: 1, key: 'wallet', retentionHours: 30 * DAY },
  [TOPICS.pricesEthUsd]: { partitions: 1, key: 'pair (candles in minute order)', retentionHours: 30 * DAY },
  [TOPICS.pricesSolUsd]: { partitions: 1, key: 'pair (candles in minute order)', retentionHours: 30 * DAY },
  [TOPICS.leaderboardClaims]: { partitions: 3, key: 'wallet', retentionHours: 7 * DAY },
  [TOPICS.alerts]: { partitions: 6, key: 'webhook target, else the alert kind', retentionHours: 3 * DAY },
  [TOPICS.scanJobs]: { partitions: 3, key: 'scan kind and token (one job of a kind per token in order)', retentionHours: 3 * DAY },
  [TOPICS.scanDailyJobs]: { partitions: 3, key: 'scan kind and token (one job of a kind per token in order)', retentionHours: 3 * DAY },
}

/** Dead letters are kept longer than their topic: someone has to look at them. */
export const DEAD_LETTER_RETENTION_HOURS = 30 * DAY

/** A topic's declared Kafka settings: what `infra/kafka/topics.ts` and the Kafka bus create it with. */
export interface TopicSettings {
  partitions: number
  retentionMs: number
  maxMessageBytes: number
}

/** The settings of a declared topic (or of its dead-letter sibling) by its name with or without a namespace; null for any other topic. */
export function declaredTopicSettings(topic: string): TopicSettings | null {
  const dead = topic.endsWith('.dlq')
  const base = dead ? topic.slice(0, -'.dlq'.length) : topic
  const name = (Object.keys(TOPIC_SPECS) as TopicName[]).find((n) => base === n || base.endsWith(`.${n}`))
  if (!name) return null
  const spec = TOPIC_SPECS[name]
  const maxMessageBytes = spec.maxMessageBytes ?? KAFKA_DEFAULT_MAX_MESSAGE_BYTES
  // A dead letter keeps its record, so it takes what its topic takes.
  return dead
    ? { partitions: 1, retentionMs: DEAD_LETTER_RETENTION_HOURS * 3_600_000, maxMessageBytes }
    : { partitions: spec.partitions, retentionMs: spec.retentionHours * 3_600_000, maxMessageBytes }
}
