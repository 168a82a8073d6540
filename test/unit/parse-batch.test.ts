import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { createMemoryBus } from '../../pipelines/bus/memory-bus.ts'
import type { BusBatch, BusMessage } from '../../pipelines/bus/types.ts'
import { parseBatch } from '../../pipelines/process/parse-batch.ts'
import { createMetrics } from '../../core/metrics.ts'

const Record = z.object({ n: z.number().int() })

function batchOf(values: string[]): BusBatch {
  const messages: BusMessage[] = values.map((value, i) => ({ topic: 't', partition: 0, offset: String(i), timestamp: 0, key: null, value }))
  return { topic: 't', partition: 0, messages, highWatermark: String(values.length) }
}

describe('parseBatch()', () => {
  it('answers the valid records in order with their offsets and sends the others to <topic>.dlq with the reason and the step', async () => {
    const bus = createMemoryBus()
    const metrics = createMetrics()
    await bus.ensureTopics(['t', 't.dlq'])
    const ok = await parseBatch({ bus, metrics }, batchOf(['{"n":1}', 'not json', '{"n":"two"}', '{"n":3}']), Record, 'test-step')
    expect(ok).toEqual([{ value: { n: 1 }, offset: '0' }, { value: { n: 3 }, offset: '3' }])

    const dead: BusMessage[] = []
    const sub = await bus.subscribe({ groupId: 'g', topics: ['t.dlq'], async onBatch(b) { dead.push(...b.messages) } })
    for (let i = 0; i < 100 && dead.length < 2; i++) await new Promise((r) => setTimeout(r, 10))
    await sub.stop()
    expect(dead.map((m) => [m.value, m.headers?.reason?.split(':')[0], m.headers?.step])).toEqual([
      ['not json', 'invalid_json', 'test-step'],
      ['{"n":"two"}', 'invalid_record', 'test-step'],
    ])
    expect(metrics.render()).toMatch(/svc_dead_letters_total\{[^}]*reason="invalid_record"[^}]*\} 1/)
  })
})
