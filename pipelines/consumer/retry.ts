import { classifyError, errorMessage } from './classify-error.ts'
import { isPermanentPublishError } from '../bus/publish-errors.ts'

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

/**
 * Run `work` until it succeeds. Retryable errors are retried with backoff without limit (the
 * other side comes back); fatal ones up to `maxAttempts` times, then the failure is answered
 * (the caller dead-letters). `stopping()` ends the retrying by throwing ConsumerStopping.
 */
export async function attempt<T>(
  work: () => Promise<T> | T,
  policy: RetryPolicy,
  hooks: { stopping(): boolean; sleep(ms: number): Promise<void>; onRetry(kind: 'retryable' | 'fatal', err: unknown, attempt: number): void },
): Promise<Attempted<T>> {
  let fatal = 0
  for (let n = 0; ; n++) {
    try {
      return { ok: true, value: await work() }
    } catch (err) {
      // A publish the broker will refuse every time is neither retried nor dead-lettered: the
      // bus hands it to the role, which stops with its message (bus onPermanentError).
      if (err instanceof ConsumerStopping || isPermanentPublishError(err)) throw err
      const kind = classifyError(err)
      if (kind === 'fatal' && ++fatal >= policy.maxAttempts) return { ok: false, error: errorMessage(err) }
      // A stop ends the retries, not the first try: a running batch finishes when it can.
      if (hooks.stopping()) throw new ConsumerStopping('consumer stopping')
      hooks.onRetry(kind, err, n + 1)
      await hooks.sleep(Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** Math.min(n, 20)))
    }
  }
}
