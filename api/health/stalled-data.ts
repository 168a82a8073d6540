import type { Bus } from '../../core/bus/types.ts'

/**
 * One cause of a `degraded` /health: the data this process serves has not advanced while the bus
 * has. Every other component can answer and the answers still be stale: a pipeline that stopped,
 * or (the case that went unnoticed) a role reading another ClickHouse than the pipeline writes.
 * Compares the chain topic's end offset with the served watermark at each /health: when the
 * topic has grown since the watermark last moved, and that was `stallMs` or more ago, it says so.
 */
export interface StalledDataCheck {
  /** Why the served data is stale, or null when it keeps up (or the bus cannot be read: /health's bus check reports that). */
  cause(): Promise<string | null>
}

export interface StalledDataOptions {
  bus: Bus
  /** The topic whose records the served data is made of (the chain topic). */
  topic: string
  chainId: number
  /** The block the served data is refreshed through (the watermark), null before any. */
  servedThrough(): number | null
  /** Default 60 s: longer than a batch takes, so a busy pipeline is not called stalled. */
  stallMs?: number
  now?(): number
}

/** How long /health waits for the topic's end offset before leaving this cause out. */
const END_OFFSET_TIMEOUT_MS = 1_000

export function createStalledDataCheck(opts: StalledDataOptions): StalledDataCheck {
  const stallMs = opts.stallMs ?? 60_000
  const now = opts.now ?? Date.now
  let seen: { block: number | null; at: number; busAt: number } | null = null
  return {
    async cause() {
      if (!opts.bus.endOffset) return null
      let end: number
      let timer: NodeJS.Timeout | undefined
      try {
        // A broker that is slow or away must not hold /health: its own bus check reports that.
        const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('end offset: no answer')), END_OFFSET_TIMEOUT_MS)))
        end = await Promise.race([opts.bus.endOffset(opts.topic), late])
      } catch {
        return null
      } finally {
        clearTimeout(timer)
      }
      const block = opts.servedThrough()
      const t = now()
      if (!seen || block !== seen.block) {
        seen = { block, at: t, busAt: end }
        return null
      }
      const waited = t - seen.at
      if (end <= seen.busAt || waited < stallMs) return null
      return (
        `chain ${opts.chainId}: the bus received ${end - seen.busAt} records on ${opts.topic} while the served data stayed ` +
        `${block === null ? 'empty' : `at block ${block}`} for ${Math.round(waited / 1000)} s (is the chain-${opts.chainId} pipeline running, on the same CLICKHOUSE_URL?)`
      )
    },
  }
}
