import pino, { type Logger } from 'pino'

export type { Logger }

/**
 * The process logger: structured JSON lines, one per request or batch. Pipeline processes log
 * synchronously, so the lines before a crash (a kill in the middle of a batch) are not lost in
 * a buffer; the API logs asynchronously, off the request path.
 */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', name = 'svc', opts: { sync?: boolean } = {}): Logger {
  return pino({ name, level }, pino.destination({ dest: 1, sync: opts.sync ?? false }))
}
