import { engineFor } from '../../core/engine-accounting.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import type { Bus } from '../../core/bus/types.ts'
import { createConsumer, type Consumer, type Sink } from '../consumer/create-consumer.ts'
import { createTableSink } from '../consumer/table-sink.ts'
import type { SinkHooks } from '../sink/clickhouse-sink.ts'
import { SolanaTrade, SolanaUniverseMember, SolUsdCandle } from '../records/solana.ts'
import { TOPICS } from '../../core/bus/topics.ts'
import { foldSolana, planSolanaFold } from './solana/fifo-refresh.ts'
import { createUsdLegStep, type SolanaTradeRow } from './solana/usd-leg-step.ts'

export interface SolanaProcessorDeps {
  ch: ClickHouseClient
  bus: Bus
  logger: Logger
  metrics: Metrics
  namespace?: string
  /** Called after trade rows were inserted and folded (the API's Solana version, in one process). */
  onTrades?(rows: number): void
  /** Called after each acknowledged insert of trades (fault injection in tests). */
  tradeSinkHooks?: SinkHooks
  /** Trades per batch (default 5000). */
  maxBatchSize?: number
  /** Batch by time (createConsumer's flushEveryMs): PIPELINE_FLUSH_MS in the service. */
  flushEveryMs?: number
}

/**
 * The Solana venue's pipeline, one consumer per topic: universe membership into
 * solana_universe, 5-minute SOL/USD candles into sol_usd_candles, and trades, each valued in
 * micro-USD at its candle (usd-leg-step.ts), into solana_trades, whose views keep each wallet's
 * legs for the receipt. Every insert carries its batch's deduplication token and every table
 * keeps a deduplication window (migration 022), so a redelivered batch changes nothing.
 */
export function createSolanaProcessor(deps: SolanaProcessorDeps) {
  const { bus, logger, metrics } = deps
  // Each consumer's statements count under it (core/engine-accounting.ts); `ch` is the trades'.
  const universeEngine = engineFor(deps.ch, 'solana-universe')
  const candlesEngine = engineFor(deps.ch, 'prices-sol-usd')
  const ch = engineFor(deps.ch, 'solana-trades')
  const common = { bus, logger, metrics, namespace: deps.namespace, flushEveryMs: deps.flushEveryMs }
  const tradeRows = createTableSink<SolanaTradeRow>({ name: 'solana-trades-writer', ch, metrics, tables: (v) => [['solana_trades', v.map((r) => ({ ...r }))]], hooks: deps.tradeSinkHooks })
  // The touched pairs' states looked up (late legs found), the trades in, then the pairs' FIFO
  // states folded forward (solana/fifo-refresh.ts). A retry repeats all three: the insert is
  // dropped by its token, the fold finds nothing new.
  const trades: Sink<SolanaTradeRow> = {
    name: 'solana-trades-writer',
    async write(items, ctx) {
      const plan = await planSolanaFold(ch, items.map((i) => i.value))
      if (plan.late > 0) logger.info({ pairs: plan.late }, 'solana trades older than their pair\'s FIFO state: those pairs are folded again from their first trade')
      await tradeRows.write(items, ctx)
      await foldSolana(ch, plan, ctx.token)
      deps.onTrades?.(items.length)
    },
  }
  const consumers: Consumer[] = [
    createConsumer({
      ...common,
      name: 'solana-universe',
      engine: universeEngine,
      topic: TOPICS.solanaUniverse,
      schema: SolanaUniverseMember,
      maxBatchSize: 10_000,
      sink: createTableSink<SolanaUniverseMember>({ name: 'universe-writer', ch: universeEngine, metrics, tables: (v) => [['solana_universe', v.map((m) => ({ ...m }))]] }),
    }),
    createConsumer({
      ...common,
      name: 'prices-sol-usd',
      engine: candlesEngine,
      topic: TOPICS.pricesSolUsd,
      schema: SolUsdCandle,
      maxBatchSize: 5_000,
      sink: createTableSink<SolUsdCandle>({
        name: 'sol-candles-writer', ch: candlesEngine, metrics,
        tables: (v) => [['sol_usd_candles', v.map(({ start, open, high, low, close }) => ({ start, open, high, low, close }))]],
      }),
    }),
    createConsumer({
      ...common,
      name: 'solana-trades',
      engine: ch,
      topic: TOPICS.solanaTrades,
      schema: SolanaTrade,
      steps: [createUsdLegStep({ ch })],
      maxBatchSize: deps.maxBatchSize ?? 5_000,
      sink: trades,
    }),
  ]
  return {
    async start() {
      for (const c of consumers) await c.start()
      logger.info({ topics: [TOPICS.solanaUniverse, TOPICS.pricesSolUsd, TOPICS.solanaTrades] }, 'solana processor started')
    },
    async stop() {
      await Promise.all(consumers.map((c) => c.stop()))
    },
    /** Records not yet consumed, over the three topics. */
    async lag() {
      let n = 0
      for (const c of consumers) n += await c.lag()
      return n
    },
  }
}
