import { engineFor } from '../../core/engine-accounting.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import type { Bus } from '../../core/bus/types.ts'
import { createConsumer, type Consumer } from '../consumer/create-consumer.ts'
import { createTableSink } from '../consumer/table-sink.ts'
import { CallerMirror, FollowSnapshot, SocialPost, TgSighting } from '../records/social.ts'
import { TOPICS } from '../../core/bus/topics.ts'
import { nextServingSeq } from '../../core/records/serving-changes.ts'
import { createChainClockStep } from './social/chain-clock-step.ts'
import { createFollowDiffStep, type FollowRows } from './social/follow-diff-step.ts'
import { createMentionsStep, type MentionRow } from './social/mentions-step.ts'
import { createTokenDirectory } from './social/token-directory.ts'

export interface SocialProcessorDeps {
  ch: ClickHouseClient
  bus: Bus
  logger: Logger
  metrics: Metrics
  namespace?: string
  /** Batch by time (createConsumer's flushEveryMs): PIPELINE_FLUSH_MS in the service. */
  flushEveryMs?: number
  /** Called after rows were inserted (the API's social version, in one process). */
  onInserted?(rows: number): void
  /** Called after mentions or follow snapshots were inserted: calls or callers' inputs may have moved (the call grader). */
  onCallerInputs?(): void
}

type Row = Record<string, unknown>

/**
 * caller_changes rows naming what a batch wrote rows of, one seq for the batch: the tokens mentioned
 * (`mention`) or seen in rooms (`sighting`), the accounts whose calls it may add (`author`).
 */
function namedChanges(kind: 'mention' | 'sighting' | 'author', keys: string[]): Row[] {
  const seq = nextServingSeq()
  return [...new Set(keys.filter(Boolean))].map((key) => ({ seq, kind, key }))
}

/**
 * The social pipeline, one consumer per topic: posts to mentions (text is read for references,
 * then dropped), follow snapshots to transitions, room sightings, and mirrored caller records.
 * Every insert carries its batch's deduplication token, and the aggregates are idempotent (see
 * migration 005), so at-least-once delivery is exactly-once in effect: offsets are committed
 * after the insert, and a redelivered record changes nothing.
 */
export function createSocialProcessor(deps: SocialProcessorDeps) {
  const { bus, logger, metrics } = deps
  // Each consumer's statements count under it (core/engine-accounting.ts).
  const engine = {
    posts: engineFor(deps.ch, 'social-posts'),
    follows: engineFor(deps.ch, 'social-follows'),
    sightings: engineFor(deps.ch, 'social-sightings'),
    mirrors: engineFor(deps.ch, 'social-mirrors'),
  }
  const tokens = createTokenDirectory(engine.posts)
  const common = { bus, logger, metrics, namespace: deps.namespace, maxBatchSize: 2000, flushEveryMs: deps.flushEveryMs }
  const table = <T>(ch: ClickHouseClient, name: string, tables: (values: T[]) => Array<[string, Row[]]>, callerInputs = false) =>
    createTableSink<T>({
      name, ch, metrics, tables,
      onInserted: (rows) => {
        deps.onInserted?.(rows)
        if (callerInputs) deps.onCallerInputs?.()
      },
    })

  // Group ids are the ones the hand-written consumers used, so a deployment keeps its offsets.
  const consumers: Consumer[] = [
    createConsumer({
      ...common,
      name: 'social-posts',
      engine: engine.posts,
      groupId: `social-${TOPICS.socialPosts}`,
      topic: TOPICS.socialPosts,
      schema: SocialPost,
      steps: [createChainClockStep({ tokens }), createMentionsStep({ tokens })],
      // The mentioned tokens are named in caller_changes after the rows, so API processes drop what they keep per token.
      sink: table<MentionRow[]>(engine.posts, 'mentions-writer', (posts) => {
        const rows = posts.flat()
        const resolved = rows.filter((r) => r.token)
        return [['mentions', rows], ['caller_changes', [...namedChanges('mention', resolved.map((r) => r.token as string)), ...namedChanges('author', resolved.map((r) => r.author as string))]]]
      }, true),
    }),
    createConsumer({
      ...common,
      name: 'social-follows',
      engine: engine.follows,
      groupId: `social-${TOPICS.socialFollows}`,
      topic: TOPICS.socialFollows,
      schema: FollowSnapshot,
      steps: [createFollowDiffStep({ ch: engine.follows })],
      // Events first: a snapshot row marks its transitions as recorded.
      sink: table<FollowRows>(engine.follows, 'follows-writer', (v) => [['follow_events', v.flatMap((x) => x.events)], ['follow_snapshots', v.map((x) => x.snapshot)]], true),
    }),
    createConsumer({
      ...common,
      name: 'social-sightings',
      engine: engine.sightings,
      groupId: `social-${TOPICS.tgSightings}`,
      topic: TOPICS.tgSightings,
      schema: TgSighting,
      sink: table<TgSighting>(engine.sightings, 'sightings-writer', (v) => [['tg_sightings', v.map((s) => ({ ...s }))], ['caller_changes', namedChanges('sighting', v.map((s) => s.token))]]),
    }),
    createConsumer({
      ...common,
      name: 'social-mirrors',
      engine: engine.mirrors,
      groupId: `social-${TOPICS.callerMirrors}`,
      topic: TOPICS.callerMirrors,
      schema: CallerMirror,
      sink: table<CallerMirror>(engine.mirrors, 'mirrors-writer', (v) => [['caller_mirrors', v.map((m) => ({ ...m }))]]),
    }),
  ]

  return {
    async start() {
      for (const c of consumers) await c.start()
      logger.info({ topics: [TOPICS.socialPosts, TOPICS.socialFollows, TOPICS.tgSightings, TOPICS.callerMirrors] }, 'social processor started')
    },
    async stop() {
      await Promise.all(consumers.map((c) => c.stop()))
    },
  }
}
