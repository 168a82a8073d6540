import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { chainHead } from '../../core/records/data-clock.ts'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import { infraKind } from '../consumer/classify-error.ts'
import { createRetryingPublisher } from './retrying-publisher.ts'
import type { Bus, BusRecord } from '../../core/bus/types.ts'
import { isPermanentPublishError } from '../../core/bus/publish-errors.ts'
import { chainTopic, namespaced, TOPICS } from '../../core/bus/topics.ts'
import { createBackfillMeter, formatProgress } from '../sim/backfill-progress.ts'
import { createChainSimulator, type ChainSimulator, type SimLaunch } from '../sim/chain-sim.ts'
import { createLeaderboardSimulator } from '../sim/leaderboard-sim.ts'
import { createPriceSimulator } from '../sim/price-sim.ts'
import { withPadLaunches } from '../sim/launchpads.ts'
import { readSocialCheckpoint, type SocialCheckpoint } from '../sim/social-checkpoint.ts'
import { createSocialSimulator, type SocialBatch, type SocialSimBlock, type SocialSimState } from '../sim/social-sim.ts'

export interface SimStart {
  /** First block to publish. */
  fromBlock: number
  /** Unix seconds of block 0: block n is stamped genesis + n × block seconds. */
  genesis: number
  /**
   * Where the social world resumes: its state after `block`, whose records are all stored.
   * Without it the social world is rebuilt from block 1 and publishes from `fromBlock`.
   */
  social?: { block: number; state: SocialSimState }
  /** Why no social checkpoint was used (for the log), when there is history. */
  socialNote?: string
}

/**
 * Where a simulator resumes: after the last ingested block, on the same clock. The genesis time
 * is read back from an ingested block, so a restarted simulator regenerates byte-identical
 * blocks (the processor's journaled batch depends on it). A new world starts `backfillBlocks`
 * in the past so that it has history at once and then runs on wall-clock time. With
 * `checkpointPath`, the social world resumes from the checkpoint stored there when it belongs
 * to this world.
 */
export async function resolveSimStart(
  ch: ClickHouseClient,
  chainId: number,
  blockSeconds: number,
  backfillBlocks: number,
  checkpoint?: { path: string; seed: number },
): Promise<SimStart> {
  const head = await chainHead(ch, chainId)
  if (!head) return { fromBlock: 1, genesis: Math.floor(Date.now() / 1000) - Math.ceil(backfillBlocks * blockSeconds) }
  const start: SimStart = { fromBlock: head.number + 1, genesis: head.time - head.number * blockSeconds }
  if (!checkpoint) return start
  const found = readSocialCheckpoint(checkpoint.path, { chainId, seed: checkpoint.seed, genesis: start.genesis, blockSeconds })
  if ('reason' in found) return { ...start, socialNote: found.reason }
  return { ...start, social: { block: found.checkpoint.block, state: found.checkpoint.state } }
}

/** Social records published per topic, counted from the source's start. */
export type SocialCounts = Record<keyof SocialBatch, number>

export interface SimSourceOptions {
  bus: Pick<Bus, 'ensureTopics' | 'publish'>
  logger: Logger
  chainId: number
  /** Prefix of the topic name (BUS_NAMESPACE). */
  namespace?: string
  seed: number
  blockSeconds: number
  start: SimStart
  /** Stop after publishing this block (a bounded backfill); otherwise run live forever. */
  untilBlock?: number
  /** Blocks per publish call while catching up. */
  chunk?: number
  /** Publish the social world too (posts, follows, room sightings, mirrors). Default true. */
  social?: boolean
  /** Publish ETH/USD candles too (one simulated chain does). Default true. */
  prices?: boolean
  /** Launchpads of a chain that attributes launches (5042): a share of the launches goes through them (sim/launchpads.ts). */
  launchpads?: string[]
  /**
   * The last block the chain processor has ingested, when it runs in this process: catching up
   * stays at most `maxAheadBlocks` ahead of it (the in-process bus holds what is published in
   * memory), and the progress line counts ingested blocks. Without it, published ones.
   */
  ingested?: () => number
  /**
   * How often a simulator in a worker thread looks at `ingested` when not told it moved
   * (`ingestedMoved`): ms, default 1000.
   */
  ingestedPollMs?: number
  /** Default 2000. */
  maxAheadBlocks?: number
  /** Log a progress line this often while catching up (ms, default 5000; 0: never). */
  progressEveryMs?: number
  /** Where publish and checkpoint faults being retried are reported (/health degraded, svc_pipeline_infra_retries_total). */
  metrics?: Pick<Metrics, 'infraRetries' | 'infraFaults'>
  /**
   * Social checkpoints: `save` stores one, `durable` says whether the records counted are stored
   * (default: once published, as on a durable bus). Without `save`, none are taken.
   */
  checkpoints?: {
    /** Store one; a throw (EMFILE, ENOSPC, ...) keeps the candidate, retried with backoff until it is stored. */
    save(cp: Pick<SocialCheckpoint, 'block' | 'state'>): unknown
    durable?(published: SocialCounts): Promise<boolean>
    /** Take a checkpoint at most this often (ms, default 2000). */
    everyMs?: number
    /**
     * On stop, wait for the last records to be stored until this long passes without the chain
     * ingesting a block (ms, default 30 000: a backfill batch of 6,000 blocks took 16-17 s here
     * while chain 5042 backfilled beside it). The chain's social records are stored as it passes
     * them, and it may still have up to `maxAheadBlocks` published blocks to ingest.
     */
    drainMs?: number
  }
}

export interface SimSource {
  /** Resolves when `untilBlock` is published, or when stopped. */
  run(): Promise<void>
  /** Stop publishing; with checkpoints, store the last durable one first. */
  stop(): Promise<void>
  /** The next block number to publish. */
  nextBlock(): number
  /**
   * The pipeline ingested more (`ingested` moved): a simulator in a worker thread is told at once
   * instead of at its next look. The one on this thread reads `ingested` when it needs it.
   */
  ingestedMoved(): void
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Drives the deterministic simulator onto the bus: catches up as fast as the pipeline takes
 * blocks to the block whose time is now (or to `untilBlock`), then publishes each block when its
 * timestamp comes, like a chain producing blocks. The social world follows the chain block by
 * block; after a restart it continues from its checkpoint, so what it had published and stored
 * is neither published again nor lost.
 */
export function createSimSource(opts: SimSourceOptions): SimSource {
  const { bus, logger, chainId, blockSeconds, start } = opts
  const ns = opts.namespace ?? ''
  const topic = namespaced(ns, chainTopic(chainId))
  const priceTopic = namespaced(ns, TOPICS.pricesEthUsd)
  // ETH/USD candles on the same clock: every minute up to the newest block's time is published.
  const prices = createPriceSimulator({ seed: opts.seed, pair: 'ETH/USD', startPrice: 3000, startMinute: start.genesis - (start.genesis % 60) })
  // A third-party leaderboard of the simulated traders (the tracked roster), published each UTC
  // midnight; only by the world with the off-chain feeds (the roster is chain 4663's).
  const leaderboard = opts.prices !== false ? createLeaderboardSimulator({ seed: opts.seed, prices }) : undefined
  const claimsTopic = namespaced(ns, TOPICS.leaderboardClaims)
  let nextMinute = Math.floor((start.genesis + (start.fromBlock - 1) * blockSeconds) / 60) * 60
  const chunk = opts.chunk ?? 100
  const maxAhead = opts.maxAheadBlocks ?? 2000
  const socialTopics: Record<keyof SocialBatch, string> = {
    posts: namespaced(ns, TOPICS.socialPosts),
    follows: namespaced(ns, TOPICS.socialFollows),
    sightings: namespaced(ns, TOPICS.tgSightings),
    mirrors: namespaced(ns, TOPICS.callerMirrors),
  }
  const sim: ChainSimulator = createChainSimulator({ chainId, seed: opts.seed, startTime: start.genesis, blockTimeSec: blockSeconds })
  const social = opts.social === false ? null : createSocialSimulator({ seed: opts.seed, chainId, blockTimeSec: blockSeconds, state: start.social?.state })
  /** The social world has seen every block before this one. */
  const socialFrom = start.social ? start.social.block + 1 : 1
  /** Social records of earlier blocks are stored already (rebuilt without a checkpoint: those of blocks already ingested). */
  const socialPublishFrom = start.social ? socialFrom : start.fromBlock
  const counts: SocialCounts = { posts: 0, follows: 0, sightings: 0, mirrors: 0 }
  const candidates: Array<{ block: number; state: SocialSimState; counts: SocialCounts }> = []
  let lastCandidateAt = 0
  let lastSaved = start.social?.block ?? -1
  let stopped = false
  let running: Promise<void> | undefined
  let wake: (() => void) | undefined
  const blockDue = () => Math.floor((Date.now() / 1000 - start.genesis) / blockSeconds)
  const component = `sim-${chainId}`
  /** A checkpoint write being retried: counted and shown on /health until it clears. */
  function faulted(at: string, err: unknown): void {
    // Whatever stops a publish or a checkpoint write is the environment: the records are ours.
    const kind = infraKind(err) ?? 'os'
    opts.metrics?.infraRetries.inc({ consumer: component, kind })
    opts.metrics?.infraFaults.retrying(component, at, kind, err)
  }
  let checkpointFailures = 0
  let checkpointRetryAt = 0

  const publish = createRetryingPublisher({ bus, logger, component, metrics: opts.metrics, stopped: () => stopped })

  function socialRecords(s: SocialBatch): Record<keyof SocialBatch, BusRecord[]> {
    return {
      posts: s.posts.map((p) => ({ key: p.author, value: JSON.stringify(p) })),
      follows: s.follows.map((f) => ({ key: f.account, value: JSON.stringify(f) })),
      sightings: s.sightings.map((x) => ({ key: x.token, value: JSON.stringify(x) })),
      mirrors: s.mirrors.map((m) => ({ key: m.handle, value: JSON.stringify(m) })),
    }
  }

  async function publishSocial(out: Record<keyof SocialBatch, BusRecord[]>): Promise<void> {
    for (const k of Object.keys(out) as Array<keyof SocialBatch>) {
      if (out[k].length === 0) continue
      await publish(socialTopics[k], out[k])
      counts[k] += out[k].length
    }
  }

  const emptySocial = (): Record<keyof SocialBatch, BusRecord[]> => ({ posts: [], follows: [], sightings: [], mirrors: [] })

  /** Feed one block to the social world (when it has not seen it), collecting what to publish. */
  function feedSocial(block: SocialSimBlock, launched: readonly SimLaunch[], out: Record<keyof SocialBatch, BusRecord[]>): void {
    if (!social || block.number < socialFrom) return
    const batch = social.onBlock(block, launched)
    if (block.number < socialPublishFrom) return
    const s = socialRecords(batch)
    for (const k of Object.keys(out) as Array<keyof SocialBatch>) out[k].push(...s[k])
  }

  /** Replay the world up to `fromBlock` without encoding, in slices so the process stays responsive. */
  async function replay(): Promise<void> {
    const out = emptySocial()
    while (sim.nextNumber < start.fromBlock) {
      sim.skipTo(Math.min(start.fromBlock, sim.nextNumber + 5000), (b, launched) => feedSocial(b, launched, out))
      await yieldToLoop()
    }
    // Social records of blocks between the checkpoint and the chain's watermark: not stored yet.
    await publishSocial(out)
  }

  async function waitForPipeline(): Promise<void> {
    if (!opts.ingested) return
    while (!stopped && sim.nextNumber - 1 - opts.ingested() > maxAhead) await sleep(20)
  }

  /** Publish blocks through `last`; `withSocial` false: the chain only (see stop()). */
  async function publishThrough(last: number, withSocial = true): Promise<void> {
    while ((!stopped || !withSocial) && sim.nextNumber <= last) {
      await waitForPipeline()
      if (stopped && withSocial) break
      const records: BusRecord[] = []
      const candles: BusRecord[] = []
      const claims: BusRecord[] = []
      const out = emptySocial()
      while (records.length < chunk && sim.nextNumber <= last) {
        const b = sim.nextBlock()
        records.push({ key: String(chainId), value: JSON.stringify(opts.launchpads ? withPadLaunches(b, opts.launchpads) : b) })
        if (leaderboard) for (const c of leaderboard.observe(b.timestamp, sim.trades) ?? []) claims.push({ key: c.wallet, value: JSON.stringify(c) })
        if (opts.prices !== false) for (; nextMinute <= b.timestamp; nextMinute += 60) candles.push({ key: 'ETH/USD', value: JSON.stringify(prices.candleAt(nextMinute)) })
        if (withSocial) feedSocial(b, sim.launched, out)
      }
      // Candles first: a block's quote finds the minute it was observed in.
      if (candles.length) await publish(priceTopic, candles)
      await publish(topic, records)
      if (claims.length) await publish(claimsTopic, claims)
      await publishSocial(out)
      await checkpoint(false)
      // Generating is synchronous work: let the pipeline and the API run between chunks.
      await yieldToLoop()
    }
  }

  /** The save of a stored candidate running beside the simulator, if one is (one at a time). */
  let saving: Promise<void> | undefined

  /**
   * Take a checkpoint candidate now and then, and save the newest one whose records are stored.
   * While publishing (`final` false) the save runs beside the simulator: whether records are
   * stored is asked of the pipeline's thread, and waiting for its answers after every chunk
   * held chain 4663's catch-up to a few hundred blocks a second while that thread was busy with a
   * batch (60-70% of the simulator's time in the first 20 s of a fresh start). `final` waits.
   */
  async function checkpoint(final: boolean): Promise<void> {
    const cp = opts.checkpoints
    if (!cp || !social) return
    const block = social.lastBlock
    const now = Date.now()
    const newest = candidates[candidates.length - 1]?.block ?? lastSaved
    if (block > newest && block >= socialPublishFrom && (final || (now - lastCandidateAt >= (cp.everyMs ?? 2000) && candidates.length < 10))) {
      candidates.push({ block, state: social.snapshot(), counts: { ...counts } })
      lastCandidateAt = now
    }
    if (!final) {
      saving ??= saveNewestStored(cp).finally(() => (saving = undefined))
      return
    }
    await saving
    await saveNewestStored(cp)
  }

  /** Save the newest candidate whose records are stored, and drop it and the ones before it. */
  async function saveNewestStored(cp: NonNullable<SimSourceOptions['checkpoints']>): Promise<void> {
    // After a failed write, wait out the backoff (250 ms doubling to 5 s) before the next one.
    if (Date.now() < checkpointRetryAt) return
    const stored = cp.durable ?? (async () => true)
    try {
      let durable = -1
      for (let i = candidates.length - 1; i >= 0; i--) {
        if (await stored(candidates[i]!.counts)) {
          durable = i
          break
        }
      }
      if (durable < 0) return
      const c = candidates[durable]!
      await cp.save({ block: c.block, state: c.state })
      // Dropped only once stored: a write refused (EMFILE, ENOSPC) keeps the candidate for the next try.
      candidates.splice(0, durable + 1)
      lastSaved = c.block
      if (checkpointFailures > 0) {
        opts.metrics?.infraFaults.cleared(component, 'checkpoint')
        logger.info({ chainId, block: c.block, failures: checkpointFailures }, 'social checkpoint stored again')
      }
      checkpointFailures = 0
      checkpointRetryAt = 0
    } catch (err) {
      faulted('checkpoint', err)
      if (checkpointFailures++ === 0) logger.warn({ chainId, err: err instanceof Error ? err.message : String(err) }, 'social checkpoint not stored; keeping it and retrying until it is')
      checkpointRetryAt = Date.now() + Math.min(5_000, 250 * 2 ** Math.min(checkpointFailures - 1, 10))
    }
  }

  /** Log progress every few seconds until the catch-up is ingested (or published, without a pipeline in process). */
  function reportProgress(from: number, target: number): () => void {
    const every = opts.progressEveryMs ?? 5000
    const total = target - from + 1
    if (every <= 0 || total <= 0) return () => {}
    const startedAt = Date.now()
    const meter = createBackfillMeter(total, startedAt)
    const done = () => (opts.ingested ? opts.ingested() : sim.nextNumber - 1) - from + 1
    logger.info({ chainId, from, through: target, blocks: total }, `backfill: ${total} blocks of simulated history, from block ${from}`)
    // Sampled every second so the finish is noticed promptly; logged every `every` ms.
    let loggedAt = startedAt
    const timer = setInterval(() => {
      const now = Date.now()
      const p = meter.sample(done(), now)
      if (p.finished) {
        clearInterval(timer)
        const secs = Math.max(1, Math.round((now - startedAt) / 1000))
        logger.info({ chainId, blocks: total, seconds: secs, blocks_per_s: Math.round(total / secs) }, `backfill done: ${total} blocks in ${secs} s; live from here, a block every ${blockSeconds} s`)
      } else if (now - loggedAt >= every) {
        loggedAt = now
        logger.info({ chainId, done: p.done, total: p.total, blocks_per_s: Math.round(p.blocksPerSec), eta_s: p.etaSec === null ? null : Math.ceil(p.etaSec), stalled_s: p.stalledSec === null ? undefined : Math.round(p.stalledSec) }, formatProgress(p))
      }
    }, Math.min(every, 1000))
    timer.unref()
    return () => clearInterval(timer)
  }

  async function run(): Promise<void> {
    await bus.ensureTopics([topic, priceTopic, ...Object.values(socialTopics)])
    if (start.socialNote && social && start.fromBlock > 1) logger.warn({ chainId, note: start.socialNote }, 'social world rebuilt from block 1 (no usable checkpoint)')
    if (start.social) logger.info({ chainId, socialBlock: start.social.block, chainBlock: start.fromBlock - 1 }, 'social world resumed from its checkpoint')
    await replay()
    const target = opts.untilBlock ?? blockDue()
    const from = sim.nextNumber
    const stopProgress = reportProgress(from, target)
    try {
      await publishThrough(target)
    } finally {
      // Otherwise the line goes on until the blocks are ingested (it stops itself).
      if (stopped) stopProgress()
    }
    if (stopped) return
    logger.info({ chainId, from, through: sim.nextNumber - 1 }, 'simulator caught up')
    if (opts.untilBlock !== undefined) return checkpoint(true)
    while (!stopped) {
      const waitMs = (start.genesis + sim.nextNumber * blockSeconds) * 1000 - Date.now()
      if (waitMs > 0) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, waitMs)
          wake = () => {
            clearTimeout(t)
            resolve()
          }
        })
      }
      if (!stopped) await publishThrough(Math.max(sim.nextNumber, blockDue()))
    }
  }

  return {
    run() {
      running ??= run()
      return running
    },
    async stop() {
      stopped = true
      wake?.()
      await running?.catch(() => {})
      const cp = opts.checkpoints
      if (!cp || !social || running === undefined) return
      // A block's posts are stamped within its time span, and the social pipeline holds back
      // posts newer than the chain: one more chain block (without its social records, which
      // the resumed social world will publish) lets the last ones in.
      await publishThrough(sim.nextNumber, false)
      // The last records published may still be on their way in: give them a moment.
      const quietMs = cp.drainMs ?? 30_000
      let until = Date.now() + quietMs
      let ingested = opts.ingested?.() ?? 0
      await checkpoint(true)
      while (candidates.length > 0 && Date.now() < until) {
        await sleep(100)
        await checkpoint(true)
        const now = opts.ingested?.() ?? 0
        if (now > ingested) [ingested, until] = [now, Date.now() + quietMs]
      }
      if (candidates.length > 0) logger.warn({ chainId, saved: lastSaved, pending: candidates.at(-1)!.block }, 'social records after the saved checkpoint were not stored in time; they will be published again')
    },
    nextBlock: () => Math.max(sim.nextNumber, start.fromBlock),
    ingestedMoved: () => {},
  }
}
