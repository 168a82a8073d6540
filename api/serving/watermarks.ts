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
  /** Version of the social data: rows ingested by the social pipeline (grows on every batch). */
  socialVersion(): string
  /** Record that the social pipeline inserted rows (in-process push). */
  socialAdvanced(rows: number): void
  refresh(): Promise<void>
  stop(): void
}

export function createWatermarks(ch: ClickHouseClient, chains: number[], pollMs = 500): Watermarks {
  const current = new Map<number, number>()
  let socialRows = 0
  let timer: NodeJS.Timeout | undefined
  const w: Watermarks = {
    get: (chainId) => current.get(chainId) ?? null,
    version: (chainId) => String(current.get(chainId) ?? 'none'),
    advance(chainId, block) {
      if (block > (current.get(chainId) ?? -1)) current.set(chainId, block)
    },
    socialVersion: () => String(socialRows),
    socialAdvanced(rows) {
      socialRows += rows
    },
    async refresh() {
      const rows = await queryRows<{ chain_id: number; n: string }>(
        ch,
        'SELECT chain_id, max(number) AS n FROM chain_blocks WHERE chain_id IN {chains:Array(UInt32)} GROUP BY chain_id',
        { chains },
      )
      for (const r of rows) w.advance(Number(r.chain_id), Number(r.n))
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
