import pino, { type Logger } from 'pino'

export type { Logger }

/** The process logger: structured JSON lines, one per request or batch. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', name = 'svc'): Logger {
  return pino({ name, level })
}
