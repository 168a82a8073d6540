import type { InfraKind } from '../../core/infra-faults.ts'
import { isPermanentPublishError } from '../../core/bus/publish-errors.ts'
import { errorMessage, infraKind } from './classify-error.ts'

/** Thrown out of a retry when the consumer is stopping: the batch is left uncommitted, to be delivered again. */
export class ConsumerStopping extends Error {
  override name = 'ConsumerStopping'
}

export interface RetryPolicy {
  /** Attempts at work that fails with a fatal error before giving up on it. */
  maxAttempts: number
  /** First wait after a failure; doubles up to `maxBackoffMs`. */
  backoffMs: number
  maxBackoffMs: number
}

export type Attempted<T> = { ok: true; value: T } | { ok: false; error: string }

export interface RetryHooks {
  stopping(): boolean
  sleep(ms: number): Promise<void>
  /** A failed attempt about to be retried; `infra` is the kind of infrastructure fault, null for a fatal error. */
  onRetry(kind: 'retryable' | 'fatal', err: unknown, attempt: number, infra: InfraKind | null): void
  /** The work is no longer retried after an infrastructure fault (it went through, gave up or stopped). */
  onInfraSettled?(): void
}

/**
 * Run `work` until it succeeds. Infrastructure faults (see classify-error.ts) are retried with
 * backoff without limit (the environment recovers; the work was never wrong); fatal errors up
 * to `maxAttempts` times, then the failure is answered (the caller dead-letters). Only fatal
 * attempts count towards the limit: an outage in between does not use up a record's tries.
 * `stopping()` ends the retrying by throwing ConsumerStopping.
 */
export async function attempt<T>(work: () => Promise<T> | T, policy: RetryPolicy, hooks: RetryHooks): Promise<Attempted<T>> {
  let fatal = 0
  let infraFailures = 0
  try {
    for (let n = 0; ; n++) {
      try {
        return { ok: true, value: await work() }
      } catch (err) {
        // A publish the broker will refuse every time is neither retried nor dead-lettered: the
        // bus hands it to the role, which stops with its message (bus onPermanentError).
        if (err instanceof ConsumerStopping || isPermanentPublishError(err)) throw err
        const infra = infraKind(err)
        if (infra === null && ++fatal >= policy.maxAttempts) return { ok: false, error: errorMessage(err) }
        if (infra !== null) infraFailures++
        // A stop ends the retries, not the first try: a running batch finishes when it can.
        if (hooks.stopping()) throw new ConsumerStopping('consumer stopping')
        hooks.onRetry(infra === null ? 'fatal' : 'retryable', err, n + 1, infra)
        await hooks.sleep(Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** Math.min(n, 20)))
      }
    }
  } finally {
    if (infraFailures > 0) hooks.onInfraSettled?.()
  }
}
