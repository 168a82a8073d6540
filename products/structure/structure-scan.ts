import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import { ScanRefused, type ScanJob, type Scanner } from './scan-job.ts'
import { isStructureFlip } from './structure-flip.ts'
import { structureSnapshots, writeStructureSnapshot, type SnapshotHolding, type StructureSnapshot } from './scan-results.ts'
import { watchersByToken } from './watchers.ts'
import { chainHead } from '../../core/records/data-clock.ts'
import { structureReport, type StructureAnswer } from './structure-report.ts'
import type { AlertEvent } from '../alerts/alert.ts'

/** Computes the structure answer of a token now. */
export type StructureReportFn = (token: string) => Promise<StructureAnswer>

/**
 * The structure answer the scans compute: the structure report (products/structure/structure-report.ts)
 * with the window ending at the chain's newest ingested block. A token the chain has nothing of
 * (no creation, transfer or pool) is refused: the job fails with that reason.
 */
export function structureReportNow(deps: { ch: ClickHouseClient; chainId: number }): StructureReportFn {
  return async (token) => {
    const head = await chainHead(deps.ch, deps.chainId)
    if (!head) throw new ScanRefused(`no block of chain ${deps.chainId} has been ingested yet`)
    const answer = await structureReport(deps.ch, deps.chainId, token, head.number)
    if (!answer.data.found) throw new ScanRefused(`no creation, transfer or pool of ${token} has been ingested on chain ${deps.chainId}`)
    return answer
  }
}

/** Unix seconds of an ISO time of the answer's window. */
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000)

/** The snapshot of one structure answer, and the wallets it names (top holders and the diff's wallets, balance at the snapshot). */
export function snapshotOf(answer: StructureAnswer, job: ScanJob, takenAt: Date): { snapshot: StructureSnapshot; holdings: SnapshotHolding[] } {
  const d = answer.data
  const holdings = new Map<string, SnapshotHolding>()
  for (const h of d.holders.top) holdings.set(h.address, { wallet: h.address, balanceWei: BigInt(h.balance_wei), labels: h.labels })
  for (const w of d.diff.wallets) if (!holdings.has(w.address)) holdings.set(w.address, { wallet: w.address, balanceWei: BigInt(w.balance_now_wei), labels: w.labels })
  return {
    snapshot: {
      token: job.token, toBlock: d.window.to_block, toTime: seconds(d.window.to_time), fromBlock: d.window.from_block, fromTime: seconds(d.window.from_time),
      trigger: job.trigger, jobId: job.id, takenAt: takenAt.toISOString(), holderCount: d.holders.count,
      top: d.holders.top.map((h) => ({ address: h.address, balanceWei: BigInt(h.balance_wei), share: h.share, labels: h.labels })),
      summary: d.diff.summary, verdict: answer.signal,
    },
    holdings: [...holdings.values()],
  }
}

/** The `structure_flip` alert for one watching key (the delivery worker sends it to that key's webhook only). */
export function flipAlert(chainId: number, previous: StructureSnapshot, next: StructureSnapshot, keyHash: string): AlertEvent {
  return {
    id: `structure_flip:${chainId}:${next.token}:${next.toBlock}`,
    kind: 'structure_flip',
    created_at: new Date().toISOString(),
    target: keyHash,
    data: {
      chain_id: chainId,
      token: next.token,
      verdict: next.verdict,
      previous_verdict: previous.verdict,
      measured_through_block: next.toBlock,
      previous_block: previous.toBlock,
      window: { from_block: next.fromBlock, from_time: new Date(next.fromTime * 1000).toISOString(), to_block: next.toBlock, to_time: new Date(next.toTime * 1000).toISOString() },
      holder_count: next.holderCount,
      diff_summary: next.summary,
    },
  }
}

/**
 * The structure scan: take the token's structure answer now, archive it as a snapshot, and,
 * when the token is watched and its verdict flipped since its previous snapshot, publish one
 * `structure_flip` alert per watching key (targeted at that key). A re-run of the same scan
 * finds its own snapshot already archived and compares with the one before it, so the alerts
 * keep their ids (deliveries are deduplicated by alert id and key).
 */
export function createStructureScanner(deps: { ch: ClickHouseClient; chainId: number; report: StructureReportFn; publish(e: AlertEvent): Promise<void>; logger: Logger }): Scanner {
  return async (job) => {
    const answer = await deps.report(job.token)
    const { snapshot, holdings } = snapshotOf(answer, job, new Date())
    // A caller's scan at a block another job already archived stores nothing new: one snapshot
    // per token and block (a daily scan keeps its own, the history's daily series reads it).
    if (job.trigger === 'request') {
      const [same] = await structureSnapshots(deps.ch, deps.chainId, job.token, { limit: 1, beforeBlock: snapshot.toBlock + 1 })
      if (same && same.toBlock === snapshot.toBlock && same.jobId !== job.id) return { measuredThroughBlock: snapshot.toBlock }
    }
    const [previous] = await structureSnapshots(deps.ch, deps.chainId, job.token, { limit: 1, beforeBlock: snapshot.toBlock })
    await writeStructureSnapshot(deps.ch, deps.chainId, snapshot, holdings)
    if (previous && isStructureFlip(previous.verdict, snapshot.verdict)) {
      const keys = (await watchersByToken(deps.ch, [job.token])).get(job.token) ?? []
      for (const key of keys) await deps.publish(flipAlert(deps.chainId, previous, snapshot, key))
      if (keys.length) deps.logger.info({ token: job.token, from: previous.verdict, to: snapshot.verdict, keys: keys.length }, 'structure flip alerted')
    }
    return { measuredThroughBlock: snapshot.toBlock }
  }
}
