import { describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { readAheadPerVersion, readAheadWhileAsked } from '../../core/serving/read-ahead-on-advance.ts'
import { createWatermarks } from '../../core/serving/watermarks.ts'

/** Watermarks told of each advance in this process (never polled: the engine is not asked). */
const pushedWatermarks = () => createWatermarks(undefined as unknown as ClickHouseClient, [4663], 0)

describe('a value read per data version, read ahead when the data moves', () => {
  it('once asked, is read at each advance before the next ask, which then reads nothing', async () => {
    const w = pushedWatermarks()
    const reads: string[] = []
    const value = readAheadPerVersion(w, () => w.version(4663), async (v) => (reads.push(v), `at ${v}`))
    w.advance(4663, 10, 1)
    expect(reads).toEqual([]) // nobody asked yet: nothing read
    expect(await value()).toBe(`at ${w.version(4663)}`)
    expect(reads).toHaveLength(1)
    w.advance(4663, 11, 2)
    expect(reads).toHaveLength(2) // read at the advance
    expect(await value()).toBe(`at ${w.version(4663)}`)
    expect(await value()).toBe(`at ${w.version(4663)}`)
    expect(reads).toHaveLength(2)
  })

  it('reads nothing ahead once not asked within its window, and keeps no failed read', async () => {
    const w = pushedWatermarks()
    let reads = 0
    let fail = false
    const value = readAheadPerVersion(w, () => w.version(4663), async (v) => {
      reads++
      if (fail) throw new Error('engine down')
      return v
    }, 20)
    await value()
    await new Promise((r) => setTimeout(r, 40))
    w.advance(4663, 11, 2)
    expect(reads).toBe(1) // asked too long ago
    await value()
    expect(reads).toBe(2)
    fail = true
    w.advance(4663, 12, 3)
    expect(reads).toBe(3)
    fail = false
    await new Promise((r) => setImmediate(r))
    expect(await value()).toBe(w.version(4663)) // the failed read-ahead is read again
    expect(reads).toBe(4)
  })

  it('says whether it was asked lately', async () => {
    const ahead = readAheadWhileAsked(pushedWatermarks(), () => {}, 20)
    expect(ahead.lately()).toBe(false)
    ahead.asked()
    expect(ahead.lately()).toBe(true)
    await new Promise((r) => setTimeout(r, 40))
    expect(ahead.lately()).toBe(false)
  })
})
