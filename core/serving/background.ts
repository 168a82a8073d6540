import { AsyncResource } from 'node:async_hooks'

/**
 * Runs work that a request starts but does not wait for (a catch-up between batches) outside that
 * request's async context, as if started where the runner was made: it carries none of the
 * request's context (log fields, the caller it was counted for).
 */
export function backgroundRunner(name: string): (work: () => void) => void {
  const scope = new AsyncResource(name)
  return (work) => scope.runInAsyncScope(work)
}
