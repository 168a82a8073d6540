import type { Metrics } from '../../core/metrics.ts'
import type { Bus, BusMessage } from '../../core/bus/types.ts'
import { deadLetterTopic } from '../../core/bus/topics.ts'

/** A record that can never be processed, and why. */
export interface DeadLetter {
  message: BusMessage
  /** `code` or `code: detail`; the code (before the colon) labels the metric. */
  reason: string
  /** The step that refused it. */
  step: string
  /** Set when the record is not the message itself (e.g. one log out of a block). */
  value?: string
}

/**
 * Writes dead letters to `<topic>.dlq`. The record keeps its key and value (and its own
 * headers), and gains `reason`, `step`, `at` and where it came from (`source_topic`,
 * `source_partition`, `source_offset`), so it can be inspected and replayed onto its topic.
 */
export function createDeadLetterWriter(deps: { bus: Bus; metrics: Metrics }) {
  return async function writeDeadLetters(topic: string, letters: DeadLetter[]): Promise<void> {
    if (letters.length === 0) return
    const at = new Date().toISOString()
    await deps.bus.publish(
      deadLetterTopic(topic),
      letters.map((d) => ({
        key: d.message.key,
        value: d.value ?? d.message.value,
        headers: {
          ...d.message.headers,
          reason: d.reason,
          step: d.step,
          at,
          source_topic: d.message.topic,
          source_partition: String(d.message.partition),
          source_offset: d.message.offset,
        },
      })),
    )
    for (const d of letters) deps.metrics.deadLetters.inc({ topic, reason: d.reason.split(':')[0]!, step: d.step })
  }
}

export type DeadLetterWriter = ReturnType<typeof createDeadLetterWriter>
