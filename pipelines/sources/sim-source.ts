import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import type { Bus } from '../bus/types.ts'
import { chainTopic, namespaced, TOPICS } from '../topics.ts'
import { createPriceSimulator } from '../sim/price-sim.ts'
import { createSocialSimulator } from '../sim/social-sim.ts'
import type { BusRecord } from '../bus/types.ts'
import { createChainSimulator, type ChainSimulator } from '../sim/chain-sim.ts'

export interface SimStart {
  /** First block to publish. */
  fromBlock: number
  /** Unix seconds of block 0: block n is stamped genesis + n × block seconds. */
  genesis: number
}

/**
 * Where a simulator resumes: after the last ingested block, on the same clock. The genesis time
 * is read back from an ingested block, so a restarted simulator regenerates byte-identical
 * blocks (the processor's journaled batch depends on it). A new world starts `backfillBlocks`
 * in the past so that it has history at once and then runs on wall-clock time.
 */
export async function resolveSimStart(ch: ClickHouseClient, chainId: number, blockSeconds: number, backfillBlocks: number): Promise<SimStart> {
  const rows = await queryRows<{ number: string; ts: string }>(
    ch,
    'SELECT number, toUnixTimestamp(timestamp) AS ts FROM chain_blocks WHERE chain_id = {chain:UInt32} ORDER BY number DESC LIMIT 1',
    { chain: chainId },
  )
  if (rows[0]) {
    const n = Number(rows[0].number)
    return { fromBlock: n + 1, genesis: Number(rows[0].ts) - n * blockSeconds }
  }
  return { fromBlock: 1, genesis: Math.floor(Date.now() / 1000) - Math.ceil(backfillBlocks * blockSeconds) }
}

export interface SimSourceOptions {
  bus: Bus
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
}

export interface SimSource {
  /** Resolves when `untilBlock` is published, or when stopped. */
  run(): Promise<void>
  stop(): void
  /** The next block number to publish. */
  nextBlock(): number
}

/**
 * Drives the deterministic simulator onto the bus: catches up as fast as the bus takes blocks
 * to the block whose time is now (or to `untilBlock`), then publishes each block when its
 * timestamp comes, like a chain producing blocks.
 */
export function createSimSource(opts: SimSourceOptions): SimSource {
  const { bus, logger, chainId, blockSeconds } = opts
  const topic = namespaced(opts.namespace ?? '', chainTopic(chainId))
  const priceTopic = namespaced(opts.namespace ?? '', TOPICS.pricesEthUsd)
  // ETH/USD candles on the same clock: every minute up to the newest block's time is published.
  const prices = createPriceSimulator({ seed: opts.seed, pair: 'ETH/USD', startPrice: 3000, startMinute: opts.start.genesis - (opts.start.genesis % 60) })
  let nextMinute = Math.floor((opts.start.genesis + (opts.start.fromBlock - 1) * blockSeconds) / 60) * 60
  const chunk = opts.chunk ?? 100
  const socialTopics = {
    posts: namespaced(opts.namespace ?? '', TOPICS.socialPosts),
    follows: namespaced(opts.namespace ?? '', TOPICS.socialFollows),
    sightings: namespaced(opts.namespace ?? '', TOPICS.tgSightings),
    mirrors: namespaced(opts.namespace ?? '', TOPICS.callerMirrors),
  }
  // The social world reacts to every block since the first, so a resumed simulator replays the
  // chain from block 1 (publishing nothing) to rebuild it, instead of skipping ahead.
  const sim: ChainSimulator = createChainSimulator({ chainId, seed: opts.seed, startTime: opts.start.genesis, blockTimeSec: blockSeconds })
  const social = opts.social === false ? null : createSocialSimulator({ seed: opts.seed, chainId, blockTimeSec: blockSeconds })
  if (social) while (sim.nextNumber < opts.start.fromBlock) social.onBlock(sim.nextBlock(), sim.launched)
  else if (opts.start.fromBlock > 1) sim.skipTo(opts.start.fromBlock)
  let stopped = false
  let wake: (() => void) | undefined
  const blockDue = () => Math.floor((Date.now() / 1000 - opts.start.genesis) / blockSeconds)

  async function publishThrough(last: number): Promise<void> {
    while (!stopped && sim.nextNumber <= last) {
      const records = []
      const candles = []
      const out = { posts: [] as BusRecord[], follows: [] as BusRecord[], sightings: [] as BusRecord[], mirrors: [] as BusRecord[] }
      while (records.length < chunk && sim.nextNumber <= last) {
        const b = sim.nextBlock()
        records.push({ key: String(chainId), value: JSON.stringify(b) })
        for (; nextMinute <= b.timestamp; nextMinute += 60) candles.push({ key: 'ETH/USD', value: JSON.stringify(prices.candleAt(nextMinute)) })
        if (social) {
          const s = social.onBlock(b, sim.launched)
          out.posts.push(...s.posts.map((p) => ({ key: p.author, value: JSON.stringify(p) })))
          out.follows.push(...s.follows.map((f) => ({ key: f.account, value: JSON.stringify(f) })))
          out.sightings.push(...s.sightings.map((x) => ({ key: x.token, value: JSON.stringify(x) })))
          out.mirrors.push(...s.mirrors.map((m) => ({ key: m.handle, value: JSON.stringify(m) })))
        }
      }
      // Candles first: a block's quote finds the minute it was observed in.
      if (candles.length) await bus.publish(priceTopic, candles)
      await bus.publish(topic, records)
      for (const [k, list] of Object.entries(out)) if (list.length) await bus.publish(socialTopics[k as keyof typeof out], list)
    }
  }

  return {
    async run() {
      await bus.ensureTopics([topic, priceTopic, ...Object.values(socialTopics)])
      const target = opts.untilBlock ?? blockDue()
      const from = sim.nextNumber
      await publishThrough(target)
      logger.info({ chainId, from, through: sim.nextNumber - 1 }, 'simulator caught up')
      if (opts.untilBlock !== undefined) return
      while (!stopped) {
        const waitMs = (opts.start.genesis + sim.nextNumber * blockSeconds) * 1000 - Date.now()
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
    },
    stop() {
      stopped = true
      wake?.()
    },
    nextBlock: () => sim.nextNumber,
  }
}
