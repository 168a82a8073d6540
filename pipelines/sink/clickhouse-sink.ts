import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Metrics } from '../../core/metrics.ts'
import { engineStep } from '../../core/engine-accounting.ts'
import { loopTurnIfDue } from '../../core/loop-turns.ts'

/** Rows per table for one batch, inserted in the order given. */
export type TableRows = Array<[table: string, rows: Record<string, unknown>[]]>

export interface ClickHouseSink {
  /**
   * Insert one batch; the last table of the list is inserted after all others are in. Each
   * table's insert carries the token `<batchToken>:<table>`, and
   * dependent materialized views deduplicate with it, so inserting the same batch again
   * (after a crash or a redelivery) changes nothing.
   */
  insertBatch(batchToken: string, tables: TableRows, progress?: InsertProgress): Promise<number>
}

/** What a batch's caller hears while its inserts land (work that reads only those may start). */
export interface InsertProgress {
  /** Each table whose insert was acknowledged. */
  onInserted?(table: string): void
  /** Every table but the last is in; the last one's insert starts now. */
  onHeadInserted?(): void
}

export interface SinkHooks {
  /** Called after each table's insert is acknowledged (fault injection in tests, metrics). */
  afterInsert?(table: string, rows: number): void
}

/** Rows from which an insert pushes its block to its materialized views side by side. */
const PARALLEL_VIEWS_FROM_ROWS = 1_000

export function createClickHouseSink(ch: ClickHouseClient, metrics: Metrics, hooks: SinkHooks = {}): ClickHouseSink {
  return {
    async insertBatch(batchToken, tables, progress = {}) {
      const insertOne = async ([table, rows]: TableRows[number]) => {
        if (rows.length === 0) return 0
        // Each insert encodes its rows at once: the process answers between one table and the next.
        await loopTurnIfDue()
        // Counted per table: an insert's cost is mostly its table's materialized views.
        await engineStep(ch, table).insert({
          table,
          values: rows,
          format: 'JSONEachRow',
          clickhouse_settings: {
            insert_deduplicate: 1,
            insert_deduplication_token: `${batchToken}:${table}`,
            deduplicate_blocks_in_dependent_materialized_views: 1,
            // A raw table feeds several materialized views: pushed to them side by side, a large
            // insert's wall time is its slowest view's, not their sum. A live batch's few rows
            // go through them in turn: its tables' inserts already run side by side, and a
            // thread per view for a handful of rows only queued them on the engine's cores
            // (a live chain-4663 batch 235-243 -> 212-215 ms mean, same machine and data).
            parallel_view_processing: rows.length >= PARALLEL_VIEWS_FROM_ROWS ? 1 : 0,
            // One batch must stay one block, or its deduplication hash would depend on how the
            // server split it.
            max_insert_block_size: '100000000',
            min_insert_block_size_rows: '0',
            min_insert_block_size_bytes: '0',
          },
        })
        metrics.ingestRows.inc({ table }, rows.length)
        hooks.afterInsert?.(table, rows.length)
        progress.onInserted?.(table)
        return rows.length
      }
      // All tables but the last go in concurrently; the last (the watermark table) goes in only
      // after every other insert was acknowledged.
      const head = await Promise.all(tables.slice(0, -1).map(insertOne))
      progress.onHeadInserted?.()
      const tail = tables.length ? await insertOne(tables[tables.length - 1]!) : 0
      return head.reduce((a, b) => a + b, tail)
    },
  }
}
