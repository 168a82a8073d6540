import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import { chainHead } from '../../core/records/data-clock.ts'
import { lastDailySnapshotTimes } from '../../products/structure/scan-results.ts'
import { watchersByToken } from '../../products/structure/watchers.ts'
import type { ScanQueue } from '../../products/structure/scan-queue.ts'

export interface DailyScans {
  /** One pass now: queue the structure scan of every watched token that is due; answers the tokens queued. */
  runOnce(): Promise<string[]>
  start(): void
  stop(): Promise<void>
}

/**
 * The daily structure scan of watched tokens, on the chain clock: a watched token is due when it
 * has no daily snapshot yet, or when the chain's newest block is at least `periodSeconds`
 * (STRUCTURE_DAILY_SCAN_SECONDS, default 86,400) of block time past its last daily snapshot. So
 * consecutive daily snapshots cover consecutive 24 h diff windows of the chain whatever its pace
 * (the simulator's chain runs faster than the wall clock; a stalled chain takes no new snapshot).
 * Scans go through the scan queue, which answers an active job instead of queuing a second; a
 * daily scan that failed (a watched token the chain has nothing of yet) is queued again a period
 * of chain time later.
 */
export function createDailyScans(deps: { ch: ClickHouseClient; queue: ScanQueue; logger: Logger; periodSeconds: number; checkMs: number }): DailyScans {
  let timer: NodeJS.Timeout | undefined
  let pass: Promise<unknown> = Promise.resolve()
  /** Chain time at which this process last queued each token's daily scan: a scan that failed is retried a period later, not at every pass. */
  const queuedAt = new Map<string, number>()

  async function runOnce(): Promise<string[]> {
    const head = await chainHead(deps.ch, deps.queue.chainId)
    if (!head) return []
    const watched = [...(await watchersByToken(deps.ch)).keys()]
    const last = await lastDailySnapshotTimes(deps.ch, deps.queue.chainId, watched)
    const waited = (t: number | undefined) => t === undefined || head.time - t >= deps.periodSeconds
    const due = watched.filter((t) => waited(last.get(t)) && waited(queuedAt.get(t)))
    for (const token of due) {
      await deps.queue.request('structure', token, 'daily')
      queuedAt.set(token, head.time)
    }
    for (const t of queuedAt.keys()) if (!watched.includes(t)) queuedAt.delete(t)
    return due
  }

  return {
    runOnce,
    start() {
      if (deps.checkMs <= 0 || timer) return
      timer = setInterval(() => {
        pass = pass.then(runOnce).catch((err) => deps.logger.warn({ err }, 'daily structure scans: pass failed'))
      }, deps.checkMs)
      timer.unref()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await pass
    },
  }
}
