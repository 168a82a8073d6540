import { describe, expect, it } from 'vitest'
import type { CallerRecord } from '../../products/social/caller-state.ts'
import { createRankedCallers, rankOrder } from '../../products/social/ranked-callers.ts'

const caller = (handle: string, score: number | null, measured = true): CallerRecord => ({
  handle, score, measured, calls: 5, graded: 4, earlyRate: 0.5, momentumRate: 0.5, hitRate: 0.5, medianReturn1h: null, grade: null, cluster: null,
})

/** A caller_state of our own: records by handle, reads counted. */
function stateOf(records: CallerRecord[]) {
  const state = new Map(records.map((r) => [r.handle, r]))
  const reads = { all: 0, some: [] as string[][] }
  let gate: Promise<void> | null = null
  let fail = false
  const read = {
    async all() {
      reads.all++
      return [...state.values()].filter((r) => r.measured)
    },
    async some(handles: string[]) {
      reads.some.push(handles)
      if (gate) await gate
      if (fail) throw new Error('engine down')
      return new Map(handles.flatMap((h) => (state.has(h) ? [[h, state.get(h)!] as const] : [])))
    },
  }
  const fresh = () => [...state.values()].filter((r) => r.measured).sort(rankOrder).map((r) => r.handle)
  return {
    state, reads, read, fresh,
    hold: () => {
      let open = () => {}
      gate = new Promise((r) => (open = r))
      return () => ((gate = null), open())
    },
    failing: (on: boolean) => void (fail = on),
  }
}

const handles = (rs: CallerRecord[]) => rs.map((r) => r.handle)

describe('the ranked callers, kept', () => {
  it('orders by score descending, a caller without one last, then by handle', () => {
    const rs = [caller('b', 10), caller('a', 10), caller('c', null), caller('d', 40)].sort(rankOrder)
    expect(handles(rs)).toEqual(['d', 'a', 'b', 'c'])
  })

  it('is read whole once; afterwards only the callers told changed are read, by key', async () => {
    const db = stateOf([caller('a', 50), caller('b', 70), caller('c', 10), caller('x', 90, false)])
    const ranked = createRankedCallers(db.read)
    expect(handles(await ranked.list())).toEqual(db.fresh())
    expect(await ranked.list()).toBe(await ranked.list()) // kept, not made again
    db.state.set('a', caller('a', 95)) // moves up
    db.state.set('c', caller('c', 10, false)) // no longer measured
    db.state.set('n', caller('n', 60)) // new
    ranked.changed(['a', 'c', 'n'])
    expect(handles(await ranked.list())).toEqual(db.fresh())
    expect(handles(await ranked.list())).toEqual(['a', 'b', 'n'])
    expect(db.reads.all).toBe(1)
    expect(db.reads.some).toEqual([['a', 'c', 'n']])
  })

  it('applies changes told while a keyed read runs before answering', async () => {
    const db = stateOf([caller('a', 50), caller('b', 70)])
    const ranked = createRankedCallers(db.read)
    await ranked.list()
    db.state.set('a', caller('a', 80))
    ranked.changed(['a'])
    const open = db.hold()
    const listed = ranked.list()
    await new Promise((r) => setImmediate(r))
    db.state.set('b', caller('b', 90))
    ranked.changed(['b'])
    open()
    expect(handles(await listed)).toEqual(['b', 'a'])
    expect(db.reads.some).toEqual([['a'], ['b']])
  })

  it('reads the whole list again after a reset, also one told during a keyed read', async () => {
    const db = stateOf([caller('a', 50), caller('b', 70)])
    const ranked = createRankedCallers(db.read)
    await ranked.list()
    ranked.changed(['a'])
    const open = db.hold()
    const listed = ranked.list()
    await new Promise((r) => setImmediate(r))
    db.state.set('z', caller('z', 99))
    ranked.reset()
    open()
    expect(handles(await listed)).toEqual(['z', 'b', 'a'])
    expect(db.reads.all).toBe(2)
  })

  it('keeps a change whose read failed for the next list', async () => {
    const db = stateOf([caller('a', 50), caller('b', 70)])
    const ranked = createRankedCallers(db.read)
    await ranked.list()
    db.state.set('a', caller('a', 80))
    ranked.changed(['a'])
    db.failing(true)
    await expect(ranked.list()).rejects.toThrow('engine down')
    db.failing(false)
    expect(handles(await ranked.list())).toEqual(['a', 'b'])
    expect(db.reads.some).toEqual([['a'], ['a']])
  })
})
