import { describe, expect, it } from 'vitest'
import { keptFromChanges } from '../../core/serving/kept-from-changes.ts'

/** A table of our own: a value per key; the kept value is the sum over keys, reads counted. */
function tableOf(rows: Record<string, number>) {
  const reads = { whole: 0, keys: [] as string[][] }
  // An update's read finishes when the test opens it (else at once).
  let gate: Promise<void> | null = null
  const sum = () => Object.values(rows).reduce((a, b) => a + b, 0)
  const kept = keptFromChanges<{ byKey: Map<string, number>; sum: number }>({
    async whole() {
      reads.whole++
      const byKey = new Map(Object.entries(rows))
      return { byKey, sum: sum() }
    },
    async update(at, keys) {
      reads.keys.push(keys)
      if (gate) await gate
      const byKey = new Map(at.byKey)
      for (const k of keys) byKey.set(k, rows[k] ?? 0)
      return { byKey, sum: [...byKey.values()].reduce((a, b) => a + b, 0) }
    },
  })
  const hold = () => {
    let open = () => {}
    gate = new Promise((r) => (open = r))
    return () => ((gate = null), open())
  }
  return { rows, reads, kept, sum, hold }
}

const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await Promise.resolve()
}

/** A kept sum (a: 1, b: 2) whose update for `a` (now 10) has started and is held in its read. */
async function updateHeld() {
  const t = tableOf({ a: 1, b: 2 })
  await t.kept.value()
  t.rows.a = 10
  t.kept.changed(['a'])
  const open = t.hold()
  const first = t.kept.value()
  await ticks(2)
  return { t, open, first }
}

describe('a value kept from the keys each change names', () => {
  it('is read whole once, then only the changed keys', async () => {
    const t = tableOf({ a: 1, b: 2 })
    expect((await t.kept.value()).sum).toBe(3)
    t.rows.a = 10
    t.kept.changed(['a'])
    expect((await t.kept.value()).sum).toBe(12)
    expect(await t.kept.value()).toBe(await t.kept.value())
    expect(t.reads).toEqual({ whole: 1, keys: [['a']] })
  })

  it('never gives a value older than a key told before it was asked, whenever in an update the key is told', async () => {
    // A key told at every point of an update, down to the turn it ends in: an update that has
    // already found nothing pending must not be joined by a later ask.
    for (let delay = 0; delay < 12; delay++) {
      const { t, open, first } = await updateHeld()
      open()
      await ticks(delay)
      t.rows.b = 20
      t.kept.changed(['b'])
      const second = t.kept.value()
      expect((await first).sum, `told after ${delay} ticks`).toBeGreaterThanOrEqual(12)
      expect((await second).sum, `told after ${delay} ticks`).toBe(30)
    }
  })

  it('gives an ask made while an update reads the updated value', async () => {
    const { t, open, first } = await updateHeld()
    const during = t.kept.value()
    open()
    expect((await during).sum).toBe(12)
    expect((await first).sum).toBe(12)
  })

  it('reads whole again after a reset, and keeps a failed read\'s keys for the next ask', async () => {
    const t = tableOf({ a: 1 })
    await t.kept.value()
    t.rows.z = 5
    t.kept.reset()
    expect((await t.kept.value()).sum).toBe(6)
    expect(t.reads.whole).toBe(2)
    const failing = keptFromChanges<number>({
      whole: async () => 0,
      update: async (_, keys) => {
        if (keys.includes('bad')) throw new Error('engine down')
        return keys.length
      },
    })
    await failing.value()
    failing.changed(['bad'])
    await expect(failing.value()).rejects.toThrow('engine down')
    await expect(failing.value()).rejects.toThrow('engine down') // still pending
  })
})
