import type { Logger } from '../core/logger.ts'
import { isPermanentPublishError } from '../core/bus/publish-errors.ts'

/**
 * Stops the process (exit 1) on a failure that retrying cannot fix, with its message as the last
 * log line: a role that retried a publish the broker refuses for good would look alive while
 * nothing moved. Nothing is committed for the failed work, so a run after the fix redoes it.
 */
export function stopRole(logger: Logger, err: Error): void {
  logger.error({ err: err.message }, `stopping: ${err.message}`)
  process.stderr.write(`svc: ${err.message}\n`)
  // The logger of an API role writes asynchronously: give the line a moment to reach its file.
  setTimeout(() => process.exit(1), 200).unref()
  process.exitCode = 1
}

/** The catch of a background task (a source, a simulator): stop the role on a permanent publish failure, otherwise log `what`. */
export function onTaskFailure(logger: Logger, what: string): (err: unknown) => void {
  return (err) => {
    if (isPermanentPublishError(err)) stopRole(logger, err)
    else logger.error({ err }, what)
  }
}
