/**
 * A dependency (the store, ClickHouse) did not answer or refused the connection. Thrown at the
 * source so callers need not recognise each client's own errors; the API answers it with
 * 503 dependency_unavailable, and a caller that can do without the dependency (a cache) treats
 * it as a miss.
 */
export class DependencyUnavailableError extends Error {
  override name = 'DependencyUnavailableError'
  constructor(
    readonly dependency: 'store' | 'clickhouse',
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${dependency} unavailable: ${reason}`, options)
  }
}

export function isDependencyUnavailable(err: unknown): err is DependencyUnavailableError {
  return err instanceof DependencyUnavailableError
}
