import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Metrics } from '../../core/metrics.ts'
import { createClickHouseSink, type SinkHooks, type TableRows } from '../sink/clickhouse-sink.ts'
import type { Sink } from './create-consumer.ts'

/**
 * A sink that inserts the batch's rows into ClickHouse tables, each insert carrying the batch's
 * deduplication token (`<token>:<table>`), so a batch retried after an unacknowledged insert is
 * not applied twice. Tables go in in the order `tables` lists them, the last one last.
 */
export function createTableSink<T>(deps: {
  name: string
  ch: ClickHouseClient
  metrics: Metrics
  /** The rows of each table for the batch's values. */
  tables(values: T[]): TableRows
  /** Called with the rows inserted, after ClickHouse acknowledged them. */
  onInserted?(rows: number): void
  hooks?: SinkHooks
}): Sink<T> {
  const sink = createClickHouseSink(deps.ch, deps.metrics, deps.hooks)
  return {
    name: deps.name,
    async write(items, ctx) {
      const rows = await sink.insertBatch(ctx.token, deps.tables(items.map((i) => i.value)))
      if (rows > 0) deps.onInserted?.(rows)
    },
  }
}
