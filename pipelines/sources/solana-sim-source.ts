import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import type { Bus, BusRecord } from '../../core/bus/types.ts'
import { candleStart, SOL_CANDLE_SECONDS } from '../records/solana.ts'
import { createSolanaSim, SOLANA_SIM_VENUE, SOLANA_UNIVERSE_SIZE, type SolanaSim } from '../sim/solana-sim.ts'
import { namespaced, TOPICS } from '../../core/bus/topics.ts'
import { createRetryingPublisher } from './retrying-publisher.ts'

export interface SolanaSimSourceOptions {
  bus: Bus
  ch: ClickHouseClient
  logger: Logger
  namespace?: string
  seed: number
  /** Trades published per second of wall time at most (the venue's history is replayed at this pace). */
  tradesPerSecond: number
  /** A new venue starts this many seconds in the past (its backfill). */
  backfillSeconds: number
  /** Universe size (default 45,504). */
  wallets?: number
  /** The clock (unix seconds); default the wall clock. */
  now?: () => number
  /** Stop once every trade up to this block time is published. */
  until?: number
  /** Publish ticks (ms, default 1000): one batch of trades per tick, so one insert and fold per tick downstream. */
  tickMs?: number
  /** Start only once this says so (polled each second): e.g. after the chain's backfill, so `svc start` serves that first. */
  startWhen?: () => boolean
  /** Where publish faults being retried are reported (/health degraded, svc_pipeline_infra_retries_total), and how far the history trails (svc_sim_behind_seconds). */
  metrics?: Pick<Metrics, 'infraRetries' | 'infraFaults' | 'simBehind'>
}

export interface SolanaSimSource {
  /** Resolves when stopped or when `until` is reached. */
  run(): Promise<void>
  stop(): Promise<void>
  /** Trades published since the start. */
  published(): number
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Publishes the simulated Solana venue (pipelines/sim/solana-sim.ts): its universe once, then
 * its trades in block-time order at most `tradesPerSecond` (never past the clock), and each
 * 5-minute SOL/USD candle once every trade of its window is out. After a restart it resumes from
 * what is stored: the venue's genesis from the universe's listing time, each wallet after its
 * last ingested trade (solana_wallet_activity), candles after the newest stored one.
 */
export function createSolanaSimSource(opts: SolanaSimSourceOptions): SolanaSimSource {
  const { ch, logger } = opts
  const ns = opts.namespace ?? ''
  const topics = {
    universe: namespaced(ns, TOPICS.solanaUniverse),
    trades: namespaced(ns, TOPICS.solanaTrades),
    candles: namespaced(ns, TOPICS.pricesSolUsd),
  }
  const size = opts.wallets ?? SOLANA_UNIVERSE_SIZE
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000))
  const tickMs = opts.tickMs ?? 1_000
  let stopped = false
  let published = 0
  // A broker away holds the venue's records here, in order, instead of ending the venue.
  const bus = { publish: createRetryingPublisher({ bus: opts.bus, logger, component: 'sim-solana', metrics: opts.metrics, stopped: () => stopped }) }

  async function prepare(): Promise<{ sim: SolanaSim; nextCandle: number }> {
    const [u] = await queryRows<{ g: number; n: string }>(
      ch,
      'SELECT toUnixTimestamp(min(listed_at)) AS g, uniqExact(wallet) AS n FROM solana_universe WHERE venue = {venue:String}',
      { venue: SOLANA_SIM_VENUE },
    )
    const stored = Number(u?.n ?? 0)
    const genesis = stored > 0 ? Number(u!.g) : now() - opts.backfillSeconds
    const sim = createSolanaSim({ seed: opts.seed, genesis, wallets: size })
    if (stored < size) {
      const members = sim.universe()
      for (let i = 0; i < members.length; i += 5_000) {
        await bus.publish(topics.universe, members.slice(i, i + 5_000).map((m) => ({ key: m.wallet, value: JSON.stringify(m) })))
      }
      logger.info({ wallets: members.length, genesis }, 'solana venue: universe published')
    }
    const last = new Map(
      (await queryRows<{ wallet: string; t: number }>(ch, 'SELECT wallet, toUnixTimestamp(max(last_at)) AS t FROM solana_wallet_activity GROUP BY wallet')).map(
        (r) => [r.wallet, Number(r.t)],
      ),
    )
    await sim.resumeGently((w) => last.get(w))
    const [c] = await queryRows<{ s: number; n: string }>(ch, 'SELECT toUnixTimestamp(max(start)) AS s, count() AS n FROM sol_usd_candles')
    const nextCandle = Number(c?.n ?? 0) > 0 ? Number(c!.s) + SOL_CANDLE_SECONDS : candleStart(genesis)
    if (last.size > 0) logger.info({ wallets: last.size, nextCandle }, 'solana venue: resumed after the stored trades')
    return { sim, nextCandle }
  }

  async function run(): Promise<void> {
    while (!stopped && opts.startWhen && !opts.startWhen()) await sleep(1_000)
    if (stopped) return
    const prepared = await prepare()
    const sim = prepared.sim
    let nextCandle = prepared.nextCandle
    let allowance = 0
    let at = performance.now()
    while (!stopped) {
      const t = performance.now()
      allowance = Math.min(allowance + (opts.tradesPerSecond * (t - at)) / 1000, Math.max(1, opts.tradesPerSecond))
      at = t
      const clock = opts.until !== undefined ? Math.min(now(), opts.until) : now()
      const trades = sim.take(clock, Math.floor(allowance))
      allowance -= trades.length
      // How far its history still trails the clock: what a reader waits for before calling it live.
      opts.metrics?.simBehind.set({ source: 'solana' }, Math.max(0, clock - sim.clock()))
      if (trades.length > 0) {
        await bus.publish(topics.trades, trades.map((x): BusRecord => ({ key: x.wallet, value: JSON.stringify(x) })))
        published += trades.length
      }
      // A window's candle goes out once every trade of the window is out.
      // At `until` the last window is closed too: nothing more comes in it.
      const done = opts.until !== undefined && sim.clock() > opts.until
      const complete = done ? candleStart(opts.until!) + SOL_CANDLE_SECONDS : Math.min(sim.clock(), clock + 1)
      const candles: BusRecord[] = []
      for (; nextCandle + SOL_CANDLE_SECONDS <= complete; nextCandle += SOL_CANDLE_SECONDS) {
        candles.push({ key: 'SOL/USD', value: JSON.stringify(sim.candle(nextCandle)) })
      }
      if (candles.length > 0) await bus.publish(topics.candles, candles)
      if (done) return
      await sleep(tickMs)
    }
  }

  return {
    run,
    async stop() {
      stopped = true
    },
    published: () => published,
  }
}
