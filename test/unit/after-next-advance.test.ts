import { describe, expect, it } from 'vitest'
import { afterNextChainAdvance, createWatermarks } from '../../core/serving/watermarks.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'

// Pushed in-process (pollMs 0): the engine is never read.
const pushed = () => createWatermarks(null as unknown as ClickHouseClient, [4663, 5042], 0)

/** Whether `p` settled within `ms`. */
const settledWithin = (p: Promise<void>, ms: number) => Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))])

describe('afterNextChainAdvance (the audit\'s quiet moment)', () => {
  it('resolves on the next served advance of a chain, not on social rows', async () => {
    const watermarks = pushed()
    const quiet = afterNextChainAdvance(watermarks, 10_000)
    watermarks.socialAdvanced(5)
    expect(await settledWithin(quiet, 50)).toBe(false)
    watermarks.advance(5042, 100, 1)
    expect(await settledWithin(quiet, 50)).toBe(true)
  })

  it('with a chain, resolves on that chain\'s advance only', async () => {
    const watermarks = pushed()
    const quiet = afterNextChainAdvance(watermarks, 10_000, 4663)
    watermarks.advance(5042, 100, 1)
    expect(await settledWithin(quiet, 50)).toBe(false)
    watermarks.advance(4663, 9, 2)
    expect(await settledWithin(quiet, 50)).toBe(true)
  })

  it('resolves after its bound when no chain advances, and leaves no listener behind', async () => {
    const watermarks = pushed()
    let listeners = 0
    const counting = { onAdvance: (l: Parameters<typeof watermarks.onAdvance>[0]) => {
      listeners++
      const stop = watermarks.onAdvance(l)
      return () => (listeners--, stop())
    } }
    const started = performance.now()
    await afterNextChainAdvance(counting, 80)
    expect(performance.now() - started).toBeGreaterThanOrEqual(75)
    expect(listeners).toBe(0)
    await Promise.all([afterNextChainAdvance(counting, 10_000), Promise.resolve().then(() => watermarks.advance(4663, 7, 2))])
    expect(listeners).toBe(0)
  })
})
