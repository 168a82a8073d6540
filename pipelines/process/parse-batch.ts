import type { z } from 'zod'
import type { Metrics } from '../../core/metrics.ts'
import type { Bus, BusBatch } from '../bus/types.ts'
import { deadLetterTopic } from '../topics.ts'

/**
 * Parse a bus batch with a record schema at the boundary. Records that are not JSON or do not
 * match go to `<topic>.dlq` with the reason and the consumer's name, so one bad record never
 * blocks a partition; the valid ones come back in order with their offsets.
 */
export async function parseBatch<S extends z.ZodType>(
  deps: { bus: Bus; metrics?: Metrics },
  batch: BusBatch,
  schema: S,
  step: string,
): Promise<Array<{ value: z.output<S>; offset: string }>> {
  const ok: Array<{ value: z.output<S>; offset: string }> = []
  const bad: Array<{ value: string; reason: string }> = []
  for (const m of batch.messages) {
    let r: ReturnType<S['safeParse']>
    try {
      r = schema.safeParse(JSON.parse(m.value)) as ReturnType<S['safeParse']>
    } catch {
      bad.push({ value: m.value, reason: 'invalid_json' })
      continue
    }
    if (r.success) ok.push({ value: r.data as z.output<S>, offset: m.offset })
    else bad.push({ value: m.value, reason: `invalid_record: ${r.error.issues[0]?.message}` })
  }
  if (bad.length) {
    const at = new Date().toISOString()
    await deps.bus.publish(deadLetterTopic(batch.topic), bad.map((b) => ({ key: null, value: b.value, headers: { reason: b.reason, step, at } })))
    for (const b of bad) deps.metrics?.deadLetters.inc({ topic: batch.topic, reason: b.reason.split(':')[0]! })
  }
  return ok
}
