import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

/** A batch a processor planned: the block range it covers and its deduplication token. */
export interface PlannedBatch {
  firstBlock: number
  lastBlock: number
  token: string
}

/**
 * The batch journal (table `pipeline_batches`). A processor records a batch here before
 * inserting any of it. After a crash, the recorded batch is re-formed exactly, with the same
 * token, so the tables it had already reached deduplicate the retry and the rest receive it.
 */
export interface BatchJournal {
  /** The last batch this consumer planned, or null. */
  last(): Promise<PlannedBatch | null>
  record(batch: PlannedBatch): Promise<void>
}

export function createBatchJournal(ch: ClickHouseClient, consumer: string): BatchJournal {
  return {
    async last() {
      const rows = await queryRows<{ first_block: string; last_block: string; token: string }>(
        ch,
        'SELECT first_block, last_block, token FROM pipeline_batches FINAL WHERE consumer = {consumer:String} LIMIT 1',
        { consumer },
      )
      const r = rows[0]
      return r ? { firstBlock: Number(r.first_block), lastBlock: Number(r.last_block), token: r.token } : null
    },
    async record(batch) {
      await ch.insert({
        table: 'pipeline_batches',
        values: [{ consumer, first_block: batch.firstBlock, last_block: batch.lastBlock, token: batch.token, planned_at: Date.now() }],
        format: 'JSONEachRow',
        clickhouse_settings: { insert_deduplicate: 0 },
      })
    },
  }
}

/**
 * Token naming a batch by what it holds: its chain, the reorg epoch, block range and last block
 * hash. The same blocks always give the same token; a different fork, or a return to an earlier
 * fork after a reorg, never does.
 */
export function batchToken(consumer: string, epoch: number, firstBlock: number, lastBlock: number, lastHash: string): string {
  return `${consumer}:e${epoch}:${firstBlock}-${lastBlock}:${lastHash.slice(2, 18).toLowerCase()}`
}
