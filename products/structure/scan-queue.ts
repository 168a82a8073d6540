import { randomUUID } from 'node:crypto'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { keyedSerializer } from '../../core/serialized.ts'
import { isActive, moveJob, type ScanJob, type ScanKind, type ScanTrigger } from './scan-job.ts'
import { chainHead } from '../../core/records/data-clock.ts'
import { activeScanJobCount, latestScanJob, writeScanJob } from './scan-jobs.ts'
import type { Bus } from '../../core/bus/types.ts'
import type { ScanJobMessage } from './scan-message.ts'
import { namespaced, TOPICS } from '../../core/bus/topics.ts'

/** Callers' scan jobs that may be queued or running at once unless SCAN_QUEUE_MAX says otherwise. */
export const DEFAULT_SCAN_QUEUE_MAX = 200

/** A job requested longer ago than this and still active was lost: it no longer counts toward the bound. */
const LANE_WINDOW_MS = 24 * 3_600_000

/** The callers' lane is full: the request is refused, nothing is queued. */
export class ScanQueueFull extends Error {
  constructor(
    readonly active: number,
    readonly max: number,
  ) {
    super(`${active} requested scans are queued or running (at most ${max})`)
  }
}

/** Requesting scans: the API's POSTs and the daily scheduler of watched tokens both go through this. */
export interface ScanQueue {
  readonly chainId: number
  /**
   * The active job of this scan when there is one (queued or running); for a caller's structure
   * scan, the last one done when the chain has no newer block (one snapshot per block);
   * otherwise a new job, recorded `queued` and put on its lane's topic for a scans worker:
   * `scans.jobs` for callers' requests (at most `maxRequested` active, else ScanQueueFull),
   * `scans.daily` for the daily scans of watched tokens, which callers can never hold up.
   */
  request(kind: ScanKind, token: string, trigger: ScanTrigger): Promise<ScanJob>
  /** The newest job of this scan, or null. */
  latest(kind: ScanKind, token: string): Promise<ScanJob | null>
}

export function createScanQueue(deps: { ch: ClickHouseClient; bus: Bus; namespace?: string; chainId?: number; maxRequested?: number }): ScanQueue {
  const chainId = deps.chainId ?? 4663
  const maxRequested = deps.maxRequested ?? DEFAULT_SCAN_QUEUE_MAX
  const topics: Record<ScanTrigger, string> = {
    request: namespaced(deps.namespace ?? '', TOPICS.scanJobs),
    daily: namespaced(deps.namespace ?? '', TOPICS.scanDailyJobs),
  }
  // One request at a time per scan in this process, so two POSTs at once answer one job; and one
  // new caller's job at a time, so requests at once cannot all see room in the lane.
  const serialized = keyedSerializer()

  async function enqueue(kind: ScanKind, token: string, trigger: ScanTrigger): Promise<ScanJob> {
    const current = await latestScanJob(deps.ch, chainId, kind, token)
    if (current && isActive(current.state)) return current
    if (trigger === 'request' && kind === 'structure' && current?.state === 'done') {
      const head = await chainHead(deps.ch, chainId)
      if (head && current.measuredThroughBlock === head.number) return current
    }
    return trigger === 'request' ? serialized('lane:request', () => queueNew(kind, token, trigger)) : queueNew(kind, token, trigger)
  }

  async function queueNew(kind: ScanKind, token: string, trigger: ScanTrigger): Promise<ScanJob> {
    if (trigger === 'request') {
      const active = await activeScanJobCount(deps.ch, chainId, 'request', LANE_WINDOW_MS)
      if (active >= maxRequested) throw new ScanQueueFull(active, maxRequested)
    }
    const now = new Date().toISOString()
    const job: ScanJob = { id: randomUUID(), kind, token, trigger, state: 'queued', reason: null, requestedAt: now, updatedAt: now, measuredThroughBlock: null }
    await writeScanJob(deps.ch, chainId, job)
    const message: ScanJobMessage = { job_id: job.id, chain_id: chainId, kind, token }
    try {
      await deps.bus.publish(topics[trigger], [{ key: `${kind}:${token}`, value: JSON.stringify(message) }])
    } catch (err) {
      // Never leave a queued job that no worker will see: it ends failed, and the caller gets the error.
      await writeScanJob(deps.ch, chainId, moveJob(job, 'failed', new Date(), { reason: 'the scan could not be queued (bus unavailable)' })).catch(() => {})
      throw err
    }
    return job
  }

  return {
    chainId,
    request: (kind, token, trigger) => serialized(`${kind}:${token}`, () => enqueue(kind, token, trigger)),
    latest: (kind, token) => latestScanJob(deps.ch, chainId, kind, token),
  }
}

declare module '../../core/endpoint/deps.ts' {
  interface ApiDeps {
    /** Structure and forensics scan jobs (queued on the bus for the scans role). */
    scans: ScanQueue
  }
}
