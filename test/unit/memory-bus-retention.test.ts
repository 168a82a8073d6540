import { describe, expect, it } from 'vitest'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import type { BusBatch } from '../../core/bus/types.ts'

const records = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ key: null, value: String(from + i) }))

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 5))
  }
}

describe('memory bus retention', () => {
  it('releases what every group has committed, keeping a window, and never what one has not read', async () => {
    const bus = createMemoryBus({ keepDonePerPartition: 100 })
    const fast: string[] = []
    const slow: string[] = []
    let slowOpen = false
    const a = await bus.subscribe({ groupId: 'fast', topics: ['t'], onBatch: async (b: BusBatch) => void fast.push(...b.messages.map((m) => m.value)) })
    const b = await bus.subscribe({
      groupId: 'slow',
      topics: ['t'],
      maxBatchSize: 50,
      onBatch: async (batch: BusBatch, control) => {
        if (!slowOpen) return control.doneThrough(String(BigInt(batch.messages[0]!.offset) - 1n))
        slow.push(...batch.messages.map((m) => m.value))
      },
    })
    await bus.publish('t', records(0, 2_000))
    await until(() => fast.length === 2_000)
    // The slow group has read nothing: every message is still there for it.
    slowOpen = true
    await until(() => slow.length === 2_000)
    expect(slow).toEqual(records(0, 2_000).map((r) => r.value))
    // Both have read everything: a late group starting from the beginning sees only the window.
    const late: string[] = []
    const c = await bus.subscribe({ groupId: 'late', topics: ['t'], onBatch: async (batch: BusBatch) => void late.push(...batch.messages.map((m) => m.value)) })
    await until(() => late.length > 0)
    await new Promise((r) => setTimeout(r, 50))
    expect(late.length).toBeGreaterThanOrEqual(100)
    expect(late.length).toBeLessThan(200)
    expect(late.at(-1)).toBe('1999')
    for (const s of [a, b, c]) await s.stop()
    await bus.close()
  })
})
