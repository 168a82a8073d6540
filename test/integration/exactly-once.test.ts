import { describe, expect, it } from 'vitest'
import { exactlyOnceRun } from '../setup/exact-counts.ts'

describe('chain processor killed in the middle of a batch (Kafka + chDB)', () => {
  const run = exactlyOnceRun()

  it('a processor killed mid-batch and restarted leaves every count exactly equal to an independent count over the raw rows', { timeout: 300_000 }, async () => {
    await run.publish()
    // Killed right after the 2nd batch's swaps insert: its reserves, liquidity events and blocks are not in yet.
    const crash1 = await run.pipeline({ PIPELINE_BATCH_BLOCKS: '100', SVC_FAULT: 'crash-after-insert:swaps:2' })
    expect(crash1.signal).toBe('SIGKILL')
    // Restarted with another batch size, so that batches formed afresh would cover other block
    // ranges than the crashed one: only re-forming the journaled batch exactly keeps it exact.
    // Killed again in the re-formed batch, after a table that the first crash had not reached.
    const crash2 = await run.pipeline({ PIPELINE_BATCH_BLOCKS: '70', SVC_FAULT: 'crash-after-insert:pool_reserves:1' })
    expect(crash2.signal).toBe('SIGKILL')
    expect(crash2.stdout.includes('re-inserting the journaled batch'), `crash2:\n${crash2.stdout.slice(-2500)}`).toBe(true)
    const finish = await run.pipeline({ PIPELINE_BATCH_BLOCKS: '70' })
    expect(finish.code, finish.stderr).toBe(0)
    expect(finish.stdout.includes('re-inserting the journaled batch'), `finish:\n${finish.stdout.slice(0, 2500)}`).toBe(true)

    await run.expectExact()
  })
})
