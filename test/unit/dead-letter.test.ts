import { describe, expect, it } from 'vitest'
import { createMetrics } from '../../core/metrics.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import type { BusMessage } from '../../core/bus/types.ts'
import { createDeadLetterWriter } from '../../pipelines/consumer/dead-letter.ts'
import { until } from '../setup/until.ts'

describe('createDeadLetterWriter()', () => {
  it('createDeadLetterWriter() keeps key, value and headers, and adds reason, step, time and origin', async () => {
    const bus = createMemoryBus()
    const metrics = createMetrics()
    const write = createDeadLetterWriter({ bus, metrics })
    const message: BusMessage = { topic: 'ns.t', partition: 0, offset: '41', timestamp: 0, key: 'acct-1', value: '{"n":1}', headers: { trace: 'abc' } }
    await write('ns.t', [{ message, reason: 'invalid_record: n: expected string', step: 'parse' }, { message, value: '{"log":3}', reason: 'malformed_log: x', step: 'chain-writer' }])
    const seen: BusMessage[] = []
    const sub = await bus.subscribe({ groupId: 'g', topics: ['ns.t.dlq'], async onBatch(b) { seen.push(...b.messages) } })
    await until('two dead letters', () => (seen.length >= 2 ? true : undefined), 5_000)
    await sub.stop()
    expect(seen.map((m) => [m.key, m.value])).toEqual([['acct-1', '{"n":1}'], ['acct-1', '{"log":3}']])
    expect(seen[0]!.headers).toMatchObject({ trace: 'abc', reason: 'invalid_record: n: expected string', step: 'parse', source_topic: 'ns.t', source_partition: '0', source_offset: '41' })
    expect(Number.isNaN(Date.parse(seen[0]!.headers!.at!))).toBe(false)
    expect(await metrics.deadLetters.get({ topic: 'ns.t', reason: 'invalid_record', step: 'parse' })).toBe(1)
    expect(await metrics.deadLetters.get({ topic: 'ns.t', reason: 'malformed_log', step: 'chain-writer' })).toBe(1)
    await bus.close()
  })
})
