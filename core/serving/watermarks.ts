import type { ClickHouseClient } from '../clickhouse.ts'
import { chainSocialVersion, chainVersion, socialRowCount } from '../records/data-clock.ts'
import { lastServedBatch, type PushedBatch } from '../records/serving-changes.ts'

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
  /**
   * When this process learnt of the source's last advance (performance.now() ms): the commit
   * itself in one process (pushed), up to a poll interval after it across processes.
   */
  advancedAt(source: AdvanceSource): number | undefined
  /**
   * A served batch's advance; with `pushed`, the batch as its writer handed it over (one host):
   * kept until the next advance of the chain for whoever follows it to apply without reading.
   */
  advance(chainId: number, block: number, seq: number, pushed?: PushedBatch): void
  /** The push of the chain's last advance, when it came with one. */
  pushed(chainId: number): PushedBatch | undefined
  /**
   * Call `listener` after each advance of a chain, or with 'social' when the social pipeline
   * inserted rows (pushed in one process, polled across processes).
   */
  onAdvance(listener: (source: AdvanceSource) => void): () => void
  /** Cache version for answers that read the social data and this chain's: `<chain>/<social>`. */
  socialChainVersion(chainId: number): string
  /** Record that the social pipeline inserted rows (in-process push). */
  socialAdvanced(rows: number): void
  refresh(): Promise<void>
  stop(): void
}

/** What advanced: a chain's served batch, or the social data. */
export type AdvanceSource = number | 'social'

export function createWatermarks(ch: ClickHouseClient, chains: number[], pollMs = 500): Watermarks {
  const current = new Map<number, { block: number; seq: number; pushed?: PushedBatch }>()
  let socialRows = 0
  let timer: NodeJS.Timeout | undefined
  const listeners = new Set<(source: AdvanceSource) => void>()
  const learntAt = new Map<AdvanceSource, number>()
  const tell = (source: AdvanceSource) => {
    learntAt.set(source, performance.now())
    for (const l of listeners) l(source)
  }
  const w: Watermarks = {
    get: (chainId) => current.get(chainId)?.block ?? null,
    seq: (chainId) => current.get(chainId)?.seq ?? 0,
    version: (chainId) => chainVersion(current.get(chainId)?.seq),
    advancedAt: (source) => learntAt.get(source),
    advance(chainId, block, seq, pushed) {
      if (seq <= (current.get(chainId)?.seq ?? 0)) return
      current.set(chainId, { block, seq, pushed: pushed?.seq === seq ? pushed : undefined })
      tell(chainId)
    },
    pushed: (chainId) => current.get(chainId)?.pushed,
    onAdvance(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    socialChainVersion: (chainId) => chainSocialVersion(current.get(chainId)?.seq, socialRows),
    socialAdvanced(rows) {
      if (rows <= 0) return
      socialRows += rows
      tell('social')
    },
    async refresh() {
      for (const chainId of chains) {
        const b = await lastServedBatch(ch, chainId)
        if (b) w.advance(chainId, b.watermark, b.seq)
      }
      const rows = await socialRowCount(ch)
      if (rows > socialRows) {
        socialRows = rows
        tell('social')
      }
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

/**
 * Resolves on the next served advance of a chain (`chainId`, or any), or after `maxMs` without
 * one: the moment a batch has just been written, when the engine has the most room before the
 * next (a block every 2 s per chain). For work that should not queue beside a live batch.
 */
export function afterNextChainAdvance(w: Pick<Watermarks, 'onAdvance'>, maxMs: number, chainId?: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      stop()
      resolve()
    }
    const timer = setTimeout(done, maxMs)
    const stop = w.onAdvance((source) => {
      if (source !== 'social' && (chainId === undefined || source === chainId)) done()
    })
  })
}
