import { engineFor } from '../../core/engine-accounting.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import type { Bus } from '../../core/bus/types.ts'
import { createConsumer } from '../consumer/create-consumer.ts'
import { createTableSink } from '../consumer/table-sink.ts'
import { PriceCandle } from '../records/price.ts'
import { TOPICS } from '../../core/bus/topics.ts'

/**
 * Consumes ETH/USD candles into `price_candles`. A candle's natural key is (pair, minute) and
 * the table replaces on it; no view aggregates candles, so a redelivered batch cannot
 * double-count, and the batch token (its offset range) also drops an identical retry.
 */
export function createPriceProcessor(deps: { ch: ClickHouseClient; bus: Bus; logger: Logger; metrics: Metrics; namespace?: string; flushEveryMs?: number }) {
  const name = 'prices-eth-usd'
  const engine = engineFor(deps.ch, name)
  return createConsumer({
    ...deps,
    name,
    engine,
    topic: TOPICS.pricesEthUsd,
    schema: PriceCandle,
    maxBatchSize: 5000,
    sink: createTableSink<PriceCandle>({ name: 'candles-writer', ch: engine, metrics: deps.metrics, tables: (v) => [['price_candles', v.map((c) => ({ ...c }))]] }),
  })
}
