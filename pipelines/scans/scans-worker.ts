import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import { isDependencyUnavailable } from '../../core/dependency.ts'
import { isActive, moveJob, ScanRefused, type ScanKind, type Scanner } from '../../products/structure/scan-job.ts'
import { scanJob, writeScanJob } from '../../products/structure/scan-jobs.ts'
import { writeForensicsResult } from '../../products/structure/scan-results.ts'
import type { Bus } from '../../core/bus/types.ts'
import { classifyError, errorMessage } from '../consumer/classify-error.ts'
import { createConsumer, type Consumer } from '../consumer/create-consumer.ts'
import { ScanJobMessage } from '../../products/structure/scan-message.ts'
import { TOPICS } from '../../core/bus/topics.ts'
import { computeForensics } from '../../products/structure/forensics.ts'
import { createDailyScans, type DailyScans } from './daily-scans.ts'
import type { ScanQueue } from '../../products/structure/scan-queue.ts'
import { createStructureScanner, type StructureReportFn } from '../../products/structure/structure-scan.ts'
import type { AlertEvent } from '../../products/alerts/alert.ts'

export interface ScansWorkerDeps {
  ch: ClickHouseClient
  bus: Bus
  logger: Logger
  metrics: Metrics
  namespace?: string
  queue: ScanQueue
  /** The structure answer of a token now (structure-scan.ts archives it and alerts flips). */
  report: StructureReportFn
  /** Put an alert on the alert bus (structure_flip). */
  publish(e: AlertEvent): Promise<void>
  /** The daily scan of watched tokens: period in chain seconds, and how often to look (ms; 0: never on its own). */
  daily: { periodSeconds: number; checkMs: number }
}

export interface ScansWorker {
  daily: DailyScans
  stop(): Promise<void>
}

/**
 * The scans role (`svc pipeline scans`, and part of `svc start`): consumes `scans.jobs` with the
 * one consumer framework, runs each job through the state machine (queued → running → done |
 * failed), and queues the daily structure scan of every watched token. A job the bus hands out
 * again after it finished is skipped; one left `running` by a stopped worker is run again.
 * A scan refused for a reason of the data (a token this role's ClickHouse has nothing of), a
 * job it has no record of, or a fatal error ends `failed` with the reason, never dropped; a
 * dependency's failure is retried by the consumer and the job stays `running`.
 */
export async function startScansWorker(deps: ScansWorkerDeps): Promise<ScansWorker> {
  const chainId = deps.queue.chainId
  const scanners: Record<ScanKind, Scanner> = {
    structure: createStructureScanner({ ch: deps.ch, chainId, report: deps.report, publish: deps.publish, logger: deps.logger }),
    async forensics(job) {
      const { result, measuredThroughBlock } = await computeForensics(deps.ch, chainId, job.token)
      await writeForensicsResult(deps.ch, chainId, { token: job.token, measuredThroughBlock, jobId: job.id, result })
      return { measuredThroughBlock }
    },
  }

  async function run(m: ScanJobMessage): Promise<void> {
    const job = await scanJob(deps.ch, m.chain_id, m.kind, m.token, m.job_id)
    if (!job) return unseenJob(m)
    if (!isActive(job.state)) return
    const running = moveJob(job, 'running', new Date())
    await writeScanJob(deps.ch, m.chain_id, running)
    try {
      const { measuredThroughBlock } = await scanners[m.kind](running)
      await writeScanJob(deps.ch, m.chain_id, moveJob(running, 'done', new Date(), { measuredThroughBlock }))
    } catch (err) {
      if (!(err instanceof ScanRefused) && (isDependencyUnavailable(err) || classifyError(err) === 'retryable')) throw err
      // One line with the reason: a refused scan (an address the chain has nothing of) is routine, not a stack trace.
      deps.logger.warn({ job: job.id, kind: m.kind, token: m.token, reason: errorMessage(err) }, 'scan failed')
      await writeScanJob(deps.ch, m.chain_id, moveJob(running, 'failed', new Date(), { reason: errorMessage(err) }))
    }
  }

  /**
   * A job message whose job this role's ClickHouse has no record of: the job was requested on
   * another ClickHouse (a role on a private engine), so this role cannot see the job or, most
   * likely, its token's data. It ends `failed` with that reason, never dropped: whoever reads the
   * same ClickHouse as this role sees why, and the log names the fix.
   */
  async function unseenJob(m: ScanJobMessage): Promise<void> {
    const reason = `the scans role has no record of job ${m.job_id}: it reads another ClickHouse than the one the scan was requested on (every role must run with the same CLICKHOUSE_URL)`
    deps.logger.error({ job: m.job_id, kind: m.kind, token: m.token }, `scan failed: ${reason}`)
    const now = new Date().toISOString()
    await writeScanJob(deps.ch, m.chain_id, { id: m.job_id, kind: m.kind, token: m.token, trigger: 'request', state: 'failed', reason, requestedAt: now, updatedAt: now, measuredThroughBlock: null })
  }

  // Two lanes, each with its own consumer: callers' requests (scans.jobs) and the daily scans of
  // watched tokens (scans.daily), so a full lane of requests never delays a daily scan.
  const lane = (name: string, topic: string): Consumer =>
    createConsumer({
      name,
      bus: deps.bus,
      logger: deps.logger,
      metrics: deps.metrics,
      namespace: deps.namespace,
      topic,
      schema: ScanJobMessage,
      maxBatchSize: 20,
      sink: {
        name: `${name}-runner`,
        async write(items) {
          for (const item of items) await run(item.value)
        },
      },
    })
  const consumers = [lane('scans', TOPICS.scanJobs), lane('scans-daily', TOPICS.scanDailyJobs)]
  for (const c of consumers) await c.start()
  const daily = createDailyScans({ ch: deps.ch, queue: deps.queue, logger: deps.logger, ...deps.daily })
  daily.start()
  deps.logger.info({ periodSeconds: deps.daily.periodSeconds }, 'scans role started: scan jobs and daily scans of watched tokens')
  return {
    daily,
    async stop() {
      await daily.stop()
      for (const c of consumers) await c.stop()
    },
  }
}
