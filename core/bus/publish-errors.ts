/**
 * Publish failures that sending again cannot fix: the broker will refuse the same records every
 * time. A producer stops on one (with its message) instead of retrying forever; every other
 * publish failure (a broker away, a leader moving) is worth retrying.
 */

/** A single record larger than the topic takes: no split of the batch can send it. */
export class RecordTooLargeError extends Error {
  override name = 'RecordTooLargeError'
  readonly permanent = true
  constructor(
    readonly topic: string,
    readonly bytes: number,
    readonly limitBytes: number,
  ) {
    super(
      `a record of ${bytes.toLocaleString('en-US')} bytes cannot be published on ${topic}: the topic takes at most ` +
        `${limitBytes.toLocaleString('en-US')} bytes per message (its max.message.bytes: declared in core/bus/topics.ts, applied by infra/kafka/topics.ts)`,
    )
  }
}

/** The broker refused a send with an error that is not retriable (MESSAGE_TOO_LARGE, an authorization failure...). */
export class PublishRefusedError extends Error {
  override name = 'PublishRefusedError'
  readonly permanent = true
  constructor(
    readonly topic: string,
    readonly brokerError: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`the broker refused a publish on ${topic} (${brokerError}): ${detail}`, options)
  }
}

export type PermanentPublishError = RecordTooLargeError | PublishRefusedError

export function isPermanentPublishError(err: unknown): err is PermanentPublishError {
  return err instanceof RecordTooLargeError || err instanceof PublishRefusedError
}

/**
 * The kafkajs protocol error type (e.g. MESSAGE_TOO_LARGE) when the broker answered a send with
 * an error it marks not retriable; null for anything else, including a broker that did not
 * answer. UNKNOWN_SERVER_ERROR is left retriable: a broker shutting down can answer it.
 */
export function nonRetriableBrokerError(err: unknown): { type: string; message: string } | null {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const x = e as { name?: string; type?: string; retriable?: boolean; message?: string; cause?: unknown; originalError?: unknown }
    if (x.name === 'KafkaJSProtocolError' && x.retriable === false && x.type && x.type !== 'UNKNOWN_SERVER_ERROR') {
      return { type: x.type, message: x.message ?? x.type }
    }
    e = x.originalError ?? x.cause
  }
  return null
}
