/** Errors a node answers when a getLogs range holds too much; the range is shrunk, not retried. */
const RANGE_ERROR = /range|too many|limit|exceed|response size|query returned more than/i

export function isRangeError(err: unknown): boolean {
  return RANGE_ERROR.test(err instanceof Error ? `${err.message} ${(err as { details?: string }).details ?? ''}` : String(err))
}

export interface RetryOptions {
  attempts?: number
  baseMs?: number
  maxMs?: number
  /** Errors for which retrying is pointless (thrown at once). */
  fatal?(err: unknown): boolean
  onRetry?(err: unknown, attempt: number, delayMs: number): void
}

/** Run `fn` with exponential backoff and full jitter between attempts. */
export async function withRetry<T>(fn: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? 6
  const base = opts.baseMs ?? 200
  const max = opts.maxMs ?? 10_000
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn()
    } catch (err) {
      if (attempt >= attempts || opts.fatal?.(err)) throw err
      const delay = Math.round(Math.random() * Math.min(max, base * 2 ** (attempt - 1)))
      opts.onRetry?.(err, attempt, delay)
      await new Promise((r) => setTimeout(r, delay))
    }
  }
}
