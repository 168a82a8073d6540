import { describe, expect, it } from 'vitest'
import { exactlyOnceRun } from '../setup/exact-counts.ts'

/** The chain processor's "batch inserted" log lines (pino JSON on stdout): blocks and watermark. */
function batchesOf(stdout: string): Array<{ blocks: number; through: number }> {
  return stdout
    .split('\n')
    .filter((l) => l.includes('"batch inserted"'))
    .map((l) => JSON.parse(l) as { blocks: number; through: number })
}

describe('a run of one-block batches is journaled at its first only (Kafka + chDB)', () => {
  const run = exactlyOnceRun()

  it('killed mid-insert, it is re-formed exactly: the first batch after a start is one block', { timeout: 300_000 }, async () => {
    await run.publish()

    // Batches of one block, as live blocks come (the run's first journaled, no other), killed right
    // after the 5th swaps insert: that batch's reserves, liquidity events and block are not in.
    const crash = await run.pipeline({ PIPELINE_BATCH_BLOCKS: '1', SVC_FAULT: 'crash-after-insert:swaps:5' })
    expect(crash.signal).toBe('SIGKILL')
    const before = batchesOf(crash.stdout)
    expect(before.length).toBeGreaterThan(4)
    expect(before.every((b) => b.blocks === 1)).toBe(true)
    const watermark = before[before.length - 1]!.through

    // Restarted with batches of 100: a first batch formed afresh would hold the crashed block
    // with the next 99 under another token, and the crashed block's swaps would count twice.
    const finish = await run.pipeline({ PIPELINE_BATCH_BLOCKS: '100' })
    expect(finish.code, finish.stderr).toBe(0)
    expect(finish.stdout.includes('re-inserting the journaled batch')).toBe(false)
    const after = batchesOf(finish.stdout)
    expect(after[0]).toEqual(expect.objectContaining({ blocks: 1, through: watermark + 1 }))
    expect(after.slice(1).some((b) => b.blocks > 1)).toBe(true)

    await run.expectExact()
  })
})
