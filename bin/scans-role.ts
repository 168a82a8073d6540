import { publishAlert } from '../pipelines/alerts/publish.ts'
import { createScanQueue, type ScanQueue } from '../products/structure/scan-queue.ts'
import { startScansWorker, type ScansWorker, type ScansWorkerDeps } from '../pipelines/scans/scans-worker.ts'
import { structureReportNow } from '../products/structure/structure-scan.ts'
import type { Runtime } from './runtime.ts'

/**
 * The scans role over a runtime (`svc pipeline scans`, and in `svc start` beside the API, sharing
 * its scan queue): scan jobs from the bus and the daily structure scans of watched tokens.
 */
export function startScansRole(rt: Runtime, queue?: ScanQueue, overrides: Partial<Pick<ScansWorkerDeps, 'report' | 'daily'>> = {}): Promise<ScansWorker> {
  const namespace = rt.config.BUS_NAMESPACE
  return startScansWorker({
    ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, namespace,
    queue: queue ?? createScanQueue({ ch: rt.ch, bus: rt.bus, namespace, maxRequested: rt.config.SCAN_QUEUE_MAX }),
    report: overrides.report ?? structureReportNow({ ch: rt.ch, chainId: 4663 }),
    publish: (e) => publishAlert(rt.bus, e, namespace),
    daily: overrides.daily ?? { periodSeconds: rt.config.STRUCTURE_DAILY_SCAN_SECONDS, checkMs: rt.config.STRUCTURE_DAILY_CHECK_MS },
  })
}
