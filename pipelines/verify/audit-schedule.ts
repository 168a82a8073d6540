import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import { chainsIngested } from '../../core/records/data-clock.ts'
import { checkView } from './run-verify.ts'
import { confirmedDrift } from './confirmed-drift.ts'
import { VIEW_CHECKS } from './view-checks.ts'
import { chainsChecked, type VerifyReport } from '../../core/records/verify-report.ts'

/**
 * The audit the service runs on itself (issue 24): one view at a time, a sample of its keys, on
 * one ClickHouse thread, off every consumer's path (its own timer), each look started at a quiet
 * moment (`quiet`: just after a chain's batch was served), then a pause long enough that its
 * busy time stays under `cpuShare` of one core. A drift is counted only when a second look,
 * after the next batches had time to be served, finds the same keys with the same values
 * (confirmedDrift): a refresh in flight is not drift. /health names the views whose last pass drifted.
 */
export interface AuditSchedule {
  /** Views (with their chain) whose last check found drift. */
  driftedViews(): string[]
  /** Record a full report (a manual run) as the schedule records its passes. */
  record(report: VerifyReport): void
  stop(): Promise<void>
}

export interface AuditScheduleOptions {
  ch: ClickHouseClient
  logger: Logger
  metrics: Metrics
  /** Fraction of each view's keys per pass (AUDIT_SAMPLE). */
  sample: number
  /** Share of one core the audit may keep busy (AUDIT_CPU_SHARE). */
  cpuShare: number
  /** Before the first pass (default one minute: the start is busy enough). */
  firstDelayMs?: number
  /** Between the first look at a drift and the confirming one (default 10 s). */
  confirmDelayMs?: number
  /**
   * Resolves when a look may start: just after a chain's batch was served (bounded), so a look
   * (100-160 ms on the default world) runs in the gap before the next batch instead of beside it,
   * where it added about 30 ms to one live batch in twelve (query_log, stop 68). Default: at once.
   */
  quiet?: () => Promise<void>
}

export function startAuditSchedule(o: AuditScheduleOptions): AuditSchedule {
  const drifted = new Map<string, number>()
  const name = (view: string, chain: number | null) => (chain === null ? view : `${view}:${chain}`)
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  // One stop signal ends every wait: a pause and a quiet moment alike.
  let stopping = () => {}
  const stopSignal = new Promise<void>((resolve) => (stopping = resolve))
  const sleep = (ms: number) => Promise.race([stopSignal, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))])
  /** The next quiet moment, or the stop. */
  const quietMoment = () => (o.quiet ? Promise.race([o.quiet(), stopSignal]) : Promise.resolve())

  async function pass(seed: number): Promise<void> {
    const chains = await chainsIngested(o.ch)
    for (const check of VIEW_CHECKS) {
      for (const chain of chainsChecked(check, chains)) {
        if (stopped) return
        const opts = { sample: o.sample, seed, first: 3, maxThreads: 1 }
        await quietMoment()
        if (stopped) return
        const started = performance.now()
        let r = await checkView(o.ch, check, chain, opts)
        let busy = performance.now() - started
        if (r.drifted > 0) {
          await sleep(o.confirmDelayMs ?? 10_000)
          await quietMoment()
          const again = performance.now()
          r = confirmedDrift(r, await checkView(o.ch, check, chain, opts), opts.first)
          busy += performance.now() - again
        }
        o.metrics.auditKeysChecked.inc({ view: check.view }, r.report.checked)
        if (r.drifted > 0) {
          o.metrics.auditDrift.inc({ view: check.view }, r.drifted)
          o.logger.warn({ view: check.view, chain, drifted: r.drifted, first: r.report.first }, 'audit: a kept view drifted from its raw rows (svc verify --repair rebuilds it)')
          drifted.set(name(check.view, chain), r.drifted)
        } else {
          drifted.delete(name(check.view, chain))
        }
        // Busy for `busy`: idle long enough that busy / (busy + idle) <= cpuShare.
        await sleep(busy * (1 / o.cpuShare - 1))
      }
    }
  }

  const loop = (async () => {
    await sleep(o.firstDelayMs ?? 60_000)
    for (let seed = 1; !stopped; seed++) {
      try {
        await pass(seed)
      } catch (err) {
        if (!stopped) o.logger.warn({ err }, 'audit pass failed; the next one starts after a pause')
        await sleep(60_000)
      }
    }
  })()

  return {
    driftedViews: () => [...drifted.keys()].sort(),
    record(report) {
      for (const v of report.views) {
        if (v.drifted > 0) drifted.set(name(v.view, v.chain), v.drifted)
        else drifted.delete(name(v.view, v.chain))
      }
    },
    async stop() {
      stopped = true
      clearTimeout(timer)
      stopping()
      await loop
    },
  }
}
