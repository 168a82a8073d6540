import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { lastServedBatch } from '../../core/records/serving-changes.ts'

/**
 * The last served batch per chain: the block its serving state is refreshed through and the
 * seq of that refresh (serving_changes). Answers are cached by it. In one process the pipeline
 * pushes each refresh with `advance`; across processes the API polls. After a reorg the block
 * may go down; the seq never does.
 */
export interface Watermarks {
  /** Block the chain's serving state is refreshed through, or null before the first batch. */
  get(chainId: number): number | null
  /** Seq of the chain's last served batch (0 before the first). */
  seq(chainId: number): number
  /** Cache version for answers that depend on this chain. */
  version(chainId: number): string
  advance(chainId: number, block: number, seq: number): void
  /** Version of the social data: rows ingested by the social pipeline (grows on every batch). */
  socialVersion(): string
  /** Record that the social pipeline inserted rows (in-process push). */
  socialAdvanced(rows: number): void
  refresh(): Promise<void>
  stop(): void
}

export function createWatermarks(ch: ClickHouseClient, chains: number[], pollMs = 500): Watermarks {
  const current = new Map<number, { block: number; seq: number }>()
  let socialRows = 0
  let timer: NodeJS.Timeout | undefined
  const w: Watermarks = {
    get: (chainId) => current.get(chainId)?.block ?? null,
    seq: (chainId) => current.get(chainId)?.seq ?? 0,
    version: (chainId) => String(current.get(chainId)?.seq ?? 'none'),
    advance(chainId, block, seq) {
      if (seq > (current.get(chainId)?.seq ?? 0)) current.set(chainId, { block, seq })
    },
    socialVersion: () => String(socialRows),
    socialAdvanced(rows) {
      socialRows += rows
    },
    async refresh() {
      for (const chainId of chains) {
        const b = await lastServedBatch(ch, chainId)
        if (b) w.advance(chainId, b.watermark, b.seq)
      }
      // Row counts are metadata reads in ClickHouse: cheap enough to poll.
      const [social] = await queryRows<{ n: string }>(
        ch,
        'SELECT (SELECT count() FROM mentions) + (SELECT count() FROM follow_events) + (SELECT count() FROM tg_sightings) + (SELECT count() FROM caller_mirrors) AS n',
      )
      socialRows = Math.max(socialRows, Number(social!.n))
    },
    stop() {
      if (timer) clearInterval(timer)
    },
  }
  if (pollMs > 0) {
    timer = setInterval(() => void w.refresh().catch(() => {}), pollMs)
    timer.unref()
  }
  return w
}
