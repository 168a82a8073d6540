import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import type { Bus, Subscription } from '../bus/types.ts'
import { PriceCandle } from '../records/price.ts'
import { createClickHouseSink } from '../sink/clickhouse-sink.ts'
import { deadLetterTopic, namespaced, TOPICS } from '../topics.ts'
import { parseBatch } from './parse-batch.ts'

/**
 * Consumes ETH/USD candles into `price_candles`. A candle's natural key is (pair, minute) and
 * the table replaces on it; no view aggregates candles, so a redelivered batch cannot
 * double-count, and the batch token (its minute range) also drops an identical retry.
 */
export function createPriceProcessor(deps: { ch: ClickHouseClient; bus: Bus; logger: Logger; metrics: Metrics; namespace?: string }) {
  const topic = namespaced(deps.namespace ?? '', TOPICS.pricesEthUsd)
  const sink = createClickHouseSink(deps.ch, deps.metrics)
  let subscription: Subscription | undefined
  return {
    async start() {
      await deps.bus.ensureTopics([topic, deadLetterTopic(topic)])
      subscription = await deps.bus.subscribe({
        groupId: namespaced(deps.namespace ?? '', 'prices-eth-usd'),
        topics: [topic],
        maxBatchSize: 5000,
        async onBatch(batch) {
          const rows: Record<string, unknown>[] = (await parseBatch(deps, batch, PriceCandle, 'price-processor')).map(({ value }) => ({ ...value }))
          if (rows.length) {
            const first = rows[0]!.minute
            const last = rows[rows.length - 1]!.minute
            await sink.insertBatch(`prices:eth_usd:${first}-${last}:${rows.length}`, [['price_candles', rows]])
          }
        },
        onError: (err) => deps.logger.error({ err }, 'price batch failed; it will be retried'),
      })
    },
    async stop() {
      await subscription?.stop()
    },
  }
}
