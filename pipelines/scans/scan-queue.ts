import { randomUUID } from 'node:crypto'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { keyedSerializer } from '../../core/serialized.ts'
import { isActive, moveJob, type ScanJob, type ScanKind, type ScanTrigger } from '../../core/domain/scan-job.ts'
import { latestScanJob, writeScanJob } from '../../core/records/scan-jobs.ts'
import type { Bus } from '../bus/types.ts'
import type { ScanJobMessage } from '../records/scan.ts'
import { namespaced, TOPICS } from '../topics.ts'

/** Requesting scans: the API's POSTs and the daily scheduler of watched tokens both go through this. */
export interface ScanQueue {
  readonly chainId: number
  /**
   * The active job of this scan when there is one (queued or running); otherwise a new job,
   * recorded `queued` and put on `scans.jobs` for a scans worker.
   */
  request(kind: ScanKind, token: string, trigger: ScanTrigger): Promise<ScanJob>
  /** The newest job of this scan, or null. */
  latest(kind: ScanKind, token: string): Promise<ScanJob | null>
}

export function createScanQueue(deps: { ch: ClickHouseClient; bus: Bus; namespace?: string; chainId?: number }): ScanQueue {
  const chainId = deps.chainId ?? 4663
  const topic = namespaced(deps.namespace ?? '', TOPICS.scanJobs)
  // One request at a time per scan in this process, so two POSTs at once answer one job.
  const serialized = keyedSerializer()

  async function enqueue(kind: ScanKind, token: string, trigger: ScanTrigger): Promise<ScanJob> {
    const current = await latestScanJob(deps.ch, chainId, kind, token)
    if (current && isActive(current.state)) return current
    const now = new Date().toISOString()
    const job: ScanJob = { id: randomUUID(), kind, token, trigger, state: 'queued', reason: null, requestedAt: now, updatedAt: now, measuredThroughBlock: null }
    await writeScanJob(deps.ch, chainId, job)
    const message: ScanJobMessage = { job_id: job.id, chain_id: chainId, kind, token }
    try {
      await deps.bus.publish(topic, [{ key: `${kind}:${token}`, value: JSON.stringify(message) }])
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
