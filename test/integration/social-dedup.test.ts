import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { createLogger } from '../../core/logger.ts'
import { createMetrics } from '../../core/metrics.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import type { Bus } from '../../core/bus/types.ts'
import { createConsumer, type Consumer, type Sink } from '../../pipelines/consumer/create-consumer.ts'
import { createTableSink } from '../../pipelines/consumer/table-sink.ts'
import { createChainClockStep } from '../../pipelines/process/social/chain-clock-step.ts'
import { createMentionsStep, type MentionRow } from '../../pipelines/process/social/mentions-step.ts'
import { createTokenDirectory } from '../../pipelines/process/social/token-directory.ts'
import { SocialPost } from '../../pipelines/records/social.ts'
import { TOPICS } from '../../core/bus/topics.ts'
import { migratedChDB } from '../setup/chdb.ts'
import { freePort } from '../setup/svc-process.ts'
import { until } from '../setup/until.ts'

/**
 * Migration 014: the social tables keep a deduplication window, so the batch token the consumer
 * framework puts on every insert is honoured by the raw table and by every view target. Merges
 * are stopped, so a duplicate insert would show as extra rows rather than be hidden by a
 * ReplacingMergeTree or an idempotent aggregate.
 */

const TOKEN = `0x${'ab'.repeat(20)}`
const AUTHORS = ['alice', 'bob', 'carol']
const POSTS = 12
/** The tables the social consumers insert into. */
const SOCIAL_RAW = ['mentions', 'follow_events', 'follow_snapshots', 'tg_sightings', 'caller_mirrors']
/** The targets of the views they feed when 014 was written; the test also finds any added since. */
const KNOWN_TARGETS = ['mention_hourly', 'calls', 'mentions_by_capture', 'tg_token_stats']

let db: Awaited<ReturnType<typeof migratedChDB>>
let ch: ClickHouseClient
let bus: Bus
let consumer: Consumer | undefined
beforeAll(async () => {
  db = await migratedChDB()
  ch = db.ch
  bus = createMemoryBus({ retryDelayMs: 20 })
  // A chain that is ahead of every post (the chain clock lets them through) and knows the token.
  await ch.insert({ table: 'chain_blocks', format: 'JSONEachRow', values: [{ chain_id: 4663, number: 10, hash: '0x1', parent_hash: '0x0', timestamp: 100_000, log_count: 0 }] })
  await ch.insert({
    table: 'contract_creations', format: 'JSONEachRow',
    values: [{ chain_id: 4663, address: TOKEN, deployer: `0x${'cd'.repeat(20)}`, block_number: 10, tx_index: 0, tx_hash: '0x2', created_at: 1_000, symbol: 'PEPO', name: 'Pepo' }],
  })
  for (const t of [...SOCIAL_RAW, ...KNOWN_TARGETS]) await ch.command({ query: `SYSTEM STOP MERGES ${t}` })
})
afterAll(async () => {
  await consumer?.stop()
  await bus?.close()
  await db?.close()
})

interface Table {
  name: string
  engine_full: string
  create_table_query: string
  dependencies_table: string[]
}

/**
 * The tables materialized views write to when rows land in `sources`, followed through views of
 * views: a view added later (migration 012 and after) is checked without editing this test.
 */
function viewTargets(tables: Map<string, Table>, sources: string[]): string[] {
  const found = new Set<string>()
  const queue = [...sources]
  for (let source = queue.shift(); source !== undefined; source = queue.shift()) {
    for (const view of tables.get(source)?.dependencies_table ?? []) {
      const target = /^CREATE MATERIALIZED VIEW \S+ TO (?:\w+\.)?`?(\w+)`?/.exec(tables.get(view)?.create_table_query ?? '')?.[1]
      if (target && !found.has(target)) {
        found.add(target)
        queue.push(target)
      }
    }
  }
  return [...found]
}

const count = async (query: string) => Number((await queryRows<{ c: string }>(ch, query))[0]!.c)

describe('migration 014_social_dedup_window', () => {
  it('every social raw table and the target of every view they feed keep a deduplication window of 10000 blocks', async () => {
    const tables = new Map((await queryRows<Table>(ch, 'SELECT name, engine_full, create_table_query, dependencies_table FROM system.tables WHERE database = currentDatabase()')).map((t) => [t.name, t]))
    const targets = viewTargets(tables, SOCIAL_RAW)
    expect(targets).toEqual(expect.arrayContaining(KNOWN_TARGETS))
    for (const name of [...SOCIAL_RAW, ...targets]) {
      expect(tables.get(name)?.engine_full, name).toMatch(/non_replicated_deduplication_window = 10000\b/)
    }
  })

  it('a social-posts batch inserted three times with its batch token leaves mentions, calls and the hourly and capture views exact', async () => {
    const posts = Array.from({ length: POSTS }, (_, i) => ({
      id: `p${i}`, author: AUTHORS[i % AUTHORS.length]!, posted_at: 1_000 + 60 * i, captured_at: 1_001 + 60 * i, text: `aping $PEPO ${TOKEN}`, links: [],
    }))
    await bus.ensureTopics([TOPICS.socialPosts])
    await bus.publish(TOPICS.socialPosts, posts.map((p) => ({ key: p.author, value: JSON.stringify(p) })))

    const metrics = createMetrics()
    const tokens = createTokenDirectory(ch)
    const mentions = createTableSink<MentionRow[]>({ name: 'mentions-writer', ch, metrics, tables: (v) => [['mentions', v.flat()]] })
    const refused = await freePort()
    const tokensSeen: string[] = []
    // The insert lands, then its acknowledgement is lost to a real refused connection, twice:
    // the framework retries the same batch under the same token.
    const lostAcks: Sink<MentionRow[]> = {
      name: 'mentions-writer-lost-acks',
      async write(items, ctx) {
        await mentions.write(items, ctx)
        tokensSeen.push(ctx.token)
        if (tokensSeen.length < 3) await fetch(`http://127.0.0.1:${refused}/`)
      },
    }
    consumer = createConsumer({
      name: 'social-posts-dedup', bus, logger: createLogger('silent'), metrics, topic: TOPICS.socialPosts, schema: SocialPost,
      steps: [createChainClockStep({ tokens }), createMentionsStep({ tokens })],
      sink: lostAcks, maxBatchSize: 2000, backoffMs: 20,
    })
    await consumer.start()
    await until('the batch acknowledged', async () => (tokensSeen.length >= 3 && (await consumer!.lag()) === 0 ? true : undefined), 30_000)

    expect(tokensSeen).toHaveLength(3)
    expect(new Set(tokensSeen).size).toBe(1)
    // Each post names the token twice (address and cashtag): one mention row per post and token.
    expect(await count('SELECT count() AS c FROM mentions')).toBe(POSTS)
    expect(await count('SELECT count() AS c FROM calls')).toBe(AUTHORS.length)
    expect(await count('SELECT count() AS c FROM mentions_by_capture')).toBe(POSTS)
    const hours = await count('SELECT uniqExact(toStartOfHour(posted_at)) AS c FROM mentions')
    expect(await count('SELECT count() AS c FROM mention_hourly')).toBe(hours)
    const calls = await queryRows<{ author: string; called_at: string; mentions: string }>(
      ch,
      'SELECT author, toUnixTimestamp(min(called_at)) AS called_at, uniqExactMerge(mentions) AS mentions FROM calls GROUP BY author ORDER BY author',
    )
    expect(calls.map((c) => [c.author, Number(c.called_at), Number(c.mentions)])).toEqual(
      AUTHORS.map((a, i) => [a, 1_000 + 60 * i, POSTS / AUTHORS.length]).sort(),
    )
  })
})
