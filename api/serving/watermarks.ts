import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

/**
 * The last fully ingested block per chain, read from `chain_blocks` (a batch inserts its
 * blocks last, so a block there means all of its rows are there). The serving cache keys
 * answers by it. In one process the pipeline pushes advances with `advance`; across processes
 * the API polls.
 */
export interface Watermarks {
  /** Last ingested block of the chain, or null before the first block. */
  get(chainId: number): number | null
  /** Cache version for answers that depend on this chain. */
  version(chainId: number): string
  advance(chainId: number, block: number): void
  refresh(): Promise<void>
  stop(): void
}

export function createWatermarks(ch: ClickHouseClient, chains: number[], pollMs = 500): Watermarks {
  const current = new Map<number, number>()
  let timer: NodeJS.Timeout | undefined
  const w: Watermarks = {
    get: (chainId) => current.get(chainId) ?? null,
    version: (chainId) => String(current.get(chainId) ?? 'none'),
    advance(chainId, block) {
      if (block > (current.get(chainId) ?? -1)) current.set(chainId, block)
    },
    async refresh() {
      const rows = await queryRows<{ chain_id: number; n: string }>(
        ch,
        'SELECT chain_id, max(number) AS n FROM chain_blocks WHERE chain_id IN {chains:Array(UInt32)} GROUP BY chain_id',
        { chains },
      )
      for (const r of rows) w.advance(Number(r.chain_id), Number(r.n))
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
