import { describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { accountEngine, enginePatience, engineFor, engineStep } from '../../core/engine-accounting.ts'
import { createMetrics } from '../../core/metrics.ts'
import { CALM_BATCHES, createEnginePatience, MAX_PATIENCE } from '../../pipelines/consumer/engine-patience.ts'

describe('a consumer\'s engine patience', () => {
  // No statement is sent: only the client's state is looked at.
  const engine = () => engineFor(accountEngine({} as ClickHouseClient, createMetrics({ processMetrics: false })), 'probe')

  it('doubles on each timed-out statement up to its cap, and the parts of a step wait as long', () => {
    const ch = engine()
    const p = createEnginePatience(ch)
    expect(enginePatience(ch)).toBe(1)
    expect([p.timedOut(), p.timedOut(), p.timedOut()]).toEqual([2, 4, 8])
    expect(enginePatience(engineStep(engineStep(ch, 'refresh'), 'fifo'))).toBe(8)
    for (let i = 0; i < 10; i++) p.timedOut()
    expect(enginePatience(ch)).toBe(MAX_PATIENCE)
  })

  it('halves after a run of calm batches, the batch that timed out not counted', () => {
    const ch = engine()
    const p = createEnginePatience(ch)
    p.timedOut()
    p.timedOut()
    p.batchDone() // the batch whose statements timed out
    for (let i = 0; i < CALM_BATCHES - 1; i++) p.batchDone()
    expect(enginePatience(ch)).toBe(4)
    p.batchDone()
    expect(enginePatience(ch)).toBe(2)
    // A timeout in the next run starts it over.
    for (let i = 0; i < CALM_BATCHES - 1; i++) p.batchDone()
    p.timedOut()
    p.batchDone()
    for (let i = 0; i < CALM_BATCHES - 1; i++) p.batchDone()
    expect(enginePatience(ch)).toBe(4)
    for (let i = 0; i < 3 * CALM_BATCHES; i++) p.batchDone()
    expect(enginePatience(ch)).toBe(1)
  })

  it('leaves a client that is not a consumer\'s as it is', () => {
    const base = accountEngine({} as ClickHouseClient, createMetrics({ processMetrics: false }))
    createEnginePatience(base).timedOut()
    expect(enginePatience(base)).toBe(1)
    expect(createEnginePatience(undefined).timedOut()).toBe(1)
  })
})
