import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import type { Bus, BusRecord } from '../../core/bus/types.ts'
import { isPermanentPublishError } from '../../core/bus/publish-errors.ts'
import { infraKind } from '../consumer/classify-error.ts'

export interface RetryingPublisherDeps {
  bus: Pick<Bus, 'publish'>
  logger: Logger
  /** Names the source on /health and in svc_pipeline_infra_retries_total (e.g. `sim-4663`). */
  component: string
  metrics?: Pick<Metrics, 'infraRetries' | 'infraFaults'>
  /** Once the source is stopping, a publish that fails again is given up (thrown). */
  stopped(): boolean
}

/**
 * A source's publish, retried while the bus refuses it (a broker down or restarting, the process
 * out of descriptors): the records wait in this process, in order, and nothing after them is
 * published first. A chain does not stop producing blocks because the broker is away; the
 * pipeline dedupes a resend. Meanwhile the fault shows on /health as degraded, naming the topic.
 */
export function createRetryingPublisher(deps: RetryingPublisherDeps): (topic: string, records: BusRecord[]) => Promise<void> {
  const { bus, logger, component, metrics } = deps
  return async function publish(topic, records) {
    let waitMs = 250
    let failures = 0
    for (;;) {
      try {
        await bus.publish(topic, records)
        if (failures > 0) {
          metrics?.infraFaults.cleared(component, topic)
          logger.info({ component, topic, failures }, 'bus takes records again; publishing resumed')
        }
        return
      } catch (err) {
        // The broker will refuse these records every time (too large for the topic): stop with its reason.
        if (isPermanentPublishError(err)) {
          logger.error({ component, topic, err: err.message }, 'publish refused for good; stopping')
          throw err
        }
        // Whatever else stops a publish of our own records is the environment, not the records.
        const kind = infraKind(err) ?? 'broker'
        metrics?.infraRetries.inc({ consumer: component, kind })
        metrics?.infraFaults.retrying(component, topic, kind, err)
        if (deps.stopped() && failures > 0) {
          metrics?.infraFaults.cleared(component, topic)
          throw err
        }
        if (failures++ === 0) logger.warn({ component, topic, error_class: kind, err: err instanceof Error ? err.message : String(err) }, 'publish failed; holding the records and retrying until the bus takes them')
        await new Promise<void>((resolve) => setTimeout(resolve, waitMs))
        waitMs = Math.min(waitMs * 2, 5_000)
      }
    }
  }
}
