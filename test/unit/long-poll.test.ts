import { describe, expect, it } from 'vitest'
import { heldSeconds, holdWhileEmpty, markWoken, wokenAt } from '../../core/serving/long-poll.ts'
import { loadConfig } from '../../core/config.ts'
import { createWatermarks } from '../../core/serving/watermarks.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'

// Pushed in-process (pollMs 0): the engine is never read.
const pushed = () => createWatermarks(null as unknown as ClickHouseClient, [4663], 0)

describe('holdWhileEmpty (a feed long poll)', () => {
  it('answers the first read without a wait', async () => {
    const watermarks = pushed()
    let reads = 0
    const page = await holdWhileEmpty({ waitSeconds: undefined, read: async () => (reads++, [] as number[]), isEmpty: (p) => p.length === 0, watermarks, wakesOn: () => true })
    expect(page).toEqual([])
    expect(reads).toBe(1)
  })

  it('reads again on an advance it wakes on, not on others, and answers the first page with an item', async () => {
    const watermarks = pushed()
    let items: number[] = []
    let reads = 0
    const started = Date.now()
    const held = holdWhileEmpty({ waitSeconds: 10, read: async () => (reads++, items), isEmpty: (p) => p.length === 0, watermarks, wakesOn: (s) => s === 'social' })
    await new Promise((r) => setTimeout(r, 50))
    watermarks.advance(4663, 10, 1)
    await new Promise((r) => setTimeout(r, 50))
    expect(reads).toBe(1)
    items = [7]
    watermarks.socialAdvanced(3)
    expect(await held).toEqual([7])
    expect(reads).toBe(2)
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('an advance that lands during a read is not missed', async () => {
    const watermarks = pushed()
    let reads = 0
    const started = Date.now()
    const page = await holdWhileEmpty({
      waitSeconds: 10,
      read: async () => {
        reads++
        // The first read is overtaken by an advance: the second read must follow at once.
        if (reads === 1) watermarks.socialAdvanced(1)
        return reads === 1 ? [] : ['new']
      },
      isEmpty: (p) => p.length === 0,
      watermarks,
      wakesOn: () => true,
    })
    expect(page).toEqual(['new'])
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it('gives up with the empty page when the wait runs out, leaving no listener behind', async () => {
    const watermarks = pushed()
    let listening = 0
    const counting = {
      ...watermarks,
      onAdvance: (l: Parameters<typeof watermarks.onAdvance>[0]) => {
        listening++
        const stop = watermarks.onAdvance(l)
        return () => (listening--, stop())
      },
    }
    const started = Date.now()
    const page = await holdWhileEmpty({ waitSeconds: 1, read: async () => [], isEmpty: (p) => p.length === 0, watermarks: counting, wakesOn: () => true })
    expect(page).toEqual([])
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
    expect(listening).toBe(0)
  })

  it('marks a page found after a wake with when that advance was learnt, and only such a page', async () => {
    const watermarks = pushed()
    // Found on the first read: not a held poll, no mark (also when an advance lands during the read).
    const first = await holdWhileEmpty({ waitSeconds: 10, read: async () => (watermarks.socialAdvanced(1), { items: [1] }), isEmpty: (p) => p.items.length === 0, watermarks, wakesOn: () => true })
    expect(wokenAt(first)).toBeUndefined()

    let items: number[] = []
    const held = holdWhileEmpty({ waitSeconds: 10, read: async () => ({ items }), isEmpty: (p) => p.items.length === 0, watermarks, wakesOn: (s) => s === 4663 })
    await new Promise((r) => setTimeout(r, 20))
    items = [2]
    const before = performance.now()
    watermarks.advance(4663, 10, 1)
    const page = await held
    expect(watermarks.advancedAt(4663)).toBeGreaterThanOrEqual(before)
    expect(wokenAt(page)).toBe(watermarks.advancedAt(4663))
    // An endpoint carries the mark to the answer it builds from the page.
    expect(wokenAt(markWoken({ data: page.items }, wokenAt(page)))).toBe(wokenAt(page))
    expect(wokenAt(markWoken({}, undefined))).toBeUndefined()
    expect(wokenAt(null)).toBeUndefined()
  })

  it('holds at most LONG_POLL_HOLD_SECONDS, whatever the request asks', () => {
    expect(heldSeconds(30, loadConfig({}))).toBe(30)
    expect(heldSeconds(undefined, loadConfig({}))).toBe(0)
    expect(heldSeconds(30, loadConfig({ LONG_POLL_HOLD_SECONDS: '5' }))).toBe(5)
    expect(heldSeconds(2, loadConfig({ LONG_POLL_HOLD_SECONDS: '5' }))).toBe(2)
    expect(() => loadConfig({ LONG_POLL_HOLD_SECONDS: '31' })).toThrow(/LONG_POLL_HOLD_SECONDS/)
  })
})
