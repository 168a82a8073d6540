import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import type { Bus, BusBatch, BatchControl, Subscription } from '../bus/types.ts'
import { CallerMirror, FollowSnapshot, SocialPost, TgSighting } from '../records/social.ts'
import { extractTokenRefs, resolveRefs } from '../social/extract.ts'
import { deadLetterTopic, namespaced, TOPICS } from '../topics.ts'
import { parseBatch } from './parse-batch.ts'
import { diffFollows } from './social/follow-diff.ts'
import { createTokenDirectory } from './social/token-directory.ts'
import type { z } from 'zod'

/** A post newer than the chain is held back this long at most, waiting for the chain to catch up. */
const CHAIN_STALL_SECONDS = 30

class WaitForChain extends Error {
  override name = 'WaitForChain'
}

export interface SocialProcessorDeps {
  ch: ClickHouseClient
  bus: Bus
  logger: Logger
  metrics: Metrics
  namespace?: string
  /** Called after rows were inserted (the API's social version, in one process). */
  onInserted?(rows: number): void
}

type Row = Record<string, unknown>

/**
 * The social pipeline: posts to mentions (text is read for references, then dropped), follow
 * snapshots to transitions, room sightings, and mirrored caller records. Its aggregates are
 * idempotent (see migration 005), so at-least-once delivery is exactly-once in effect: offsets
 * are committed after the insert, and a redelivered record changes nothing.
 */
export function createSocialProcessor(deps: SocialProcessorDeps) {
  const { ch, bus, logger, metrics } = deps
  const ns = deps.namespace ?? ''
  const tokens = createTokenDirectory(ch)
  const lastSnapshot = new Map<string, { observed_at: number; following: string[] }>()
  const subscriptions: Subscription[] = []
  let chainSeen = { time: -1, at: Date.now() }

  async function insert(table: string, rows: Row[]): Promise<void> {
    if (rows.length === 0) return
    await ch.insert({ table, values: rows, format: 'JSONEachRow' })
    metrics.ingestRows.inc({ table }, rows.length)
    deps.onInserted?.(rows.length)
  }

  /** Parse a batch with a schema; invalid records go to the dead letters. */
  const parse = <S extends z.ZodType>(batch: BusBatch, schema: S) => parseBatch({ bus, metrics }, batch, schema, 'social-processor')

  async function onPosts(batch: BusBatch, control: BatchControl): Promise<void> {
    const posts = await parse(batch, SocialPost)
    await tokens.refresh()
    const chainTime = tokens.chainTime()
    if (chainTime !== chainSeen.time) chainSeen = { time: chainTime, at: Date.now() }
    const stalled = Date.now() - chainSeen.at > CHAIN_STALL_SECONDS * 1000
    // A cashtag is resolved against the tokens that exist at the post's time: hold back posts
    // newer than the chain, unless the chain has stopped advancing.
    let ready = posts
    if (!stalled) {
      const cut = posts.findIndex((p) => p.value.posted_at > chainTime)
      if (cut === 0) throw new WaitForChain(`posts are ahead of the chain (${posts[0]!.value.posted_at} > ${chainTime})`)
      if (cut > 0) {
        ready = posts.slice(0, cut)
        control.doneThrough(posts[cut - 1]!.offset)
      }
    }
    const rows: Row[] = []
    for (const { value: p } of ready) {
      const refs = resolveRefs(extractTokenRefs(p), tokens.bySymbol, tokens.isKnown)
      for (const r of refs) {
        rows.push({
          post_id: p.id,
          token: r.token ?? '',
          symbol: r.symbol ?? '',
          via: r.via,
          ambiguous: r.ambiguous ? 1 : 0,
          author: p.author,
          posted_at: p.posted_at,
          captured_at: p.captured_at,
        })
      }
    }
    await insert('mentions', rows)
  }

  async function previousSnapshot(account: string, before: number) {
    const cached = lastSnapshot.get(account)
    if (cached && cached.observed_at < before) return cached
    const [r] = await queryRows<{ observed_at: string; following: string[] }>(
      ch,
      'SELECT toUnixTimestamp(observed_at) AS observed_at, following FROM follow_snapshots FINAL WHERE account = {a:String} AND observed_at < {t:UInt32} ORDER BY observed_at DESC LIMIT 1',
      { a: account, t: before },
    )
    return r ? { observed_at: Number(r.observed_at), following: r.following } : null
  }

  async function onFollows(batch: BusBatch): Promise<void> {
    const snaps = await parse(batch, FollowSnapshot)
    const events: Row[] = []
    const rows: Row[] = []
    for (const { value: s } of snaps) {
      const prev = await previousSnapshot(s.account, s.observed_at)
      events.push(...diffFollows(prev, s).map((e) => ({ ...e })))
      rows.push({ account: s.account, observed_at: s.observed_at, following: [...new Set(s.following)], watched: s.watched ? 1 : 0 })
      const cached = lastSnapshot.get(s.account)
      if (!cached || cached.observed_at < s.observed_at) lastSnapshot.set(s.account, { observed_at: s.observed_at, following: s.following })
    }
    // Events first: a snapshot row marks its transitions as recorded.
    await insert('follow_events', events)
    await insert('follow_snapshots', rows)
  }

  async function onSightings(batch: BusBatch): Promise<void> {
    const rows = (await parse(batch, TgSighting)).map(({ value: s }) => ({ ...s }))
    await insert('tg_sightings', rows)
  }

  async function onMirrors(batch: BusBatch): Promise<void> {
    const rows = (await parse(batch, CallerMirror)).map(({ value: m }) => ({ ...m }))
    await insert('caller_mirrors', rows)
  }

  const handlers: Array<[string, (b: BusBatch, c: BatchControl) => Promise<void>]> = [
    [TOPICS.socialPosts, onPosts],
    [TOPICS.socialFollows, onFollows],
    [TOPICS.tgSightings, onSightings],
    [TOPICS.callerMirrors, onMirrors],
  ]

  return {
    async start() {
      for (const [base, handle] of handlers) {
        const topic = namespaced(ns, base)
        await bus.ensureTopics([topic, deadLetterTopic(topic)])
        subscriptions.push(
          await bus.subscribe({
            groupId: namespaced(ns, `social-${base}`),
            topics: [topic],
            maxBatchSize: 2000,
            onBatch: handle,
            onError(err) {
              if (err instanceof WaitForChain) logger.debug({ topic }, err.message)
              else logger.error({ topic, err }, 'social batch failed; it will be retried')
            },
          }),
        )
      }
      logger.info({ topics: handlers.map(([t]) => t) }, 'social processor started')
    },
    async stop() {
      await Promise.all(subscriptions.map((s) => s.stop()))
    },
  }
}
