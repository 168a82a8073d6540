import { describe, expect, it } from 'vitest'
import { inclusivePage } from '../../products/social/social-queries.ts'

const items = (times: number[]) => times.map((t, i) => ({ id: `e${i}`, t }))

describe('inclusivePage()', () => {
  it('inclusivePage() starts at since (inclusive) and keeps a timestamp group whole', () => {
    const all = items([1, 2, 2, 2, 3, 4])
    const { page, next } = inclusivePage(all, 2, 2, (x) => x.t)
    expect(page.map((x) => x.id)).toEqual(['e1', 'e2', 'e3'])
    // The whole page sits at since: the next cursor moves on.
    expect(next).toBe(3)
    const later = inclusivePage(all, 3, 1, (x) => x.t)
    expect(later).toEqual({ page: [all[4]], next: 3 + 1 })
  })

  it('inclusivePage() always progresses: a page that is all at since moves the cursor past it', () => {
    const all = items([5, 5, 5, 5, 6])
    const first = inclusivePage(all, 5, 2, (x) => x.t)
    expect(first.page).toHaveLength(4)
    expect(first.next).toBe(6)
    const second = inclusivePage(all, first.next, 2, (x) => x.t)
    expect(second.page.map((x) => x.id)).toEqual(['e4'])
  })

  it('following next with dedupe by id sees every item exactly once', () => {
    const times = [1, 1, 2, 3, 3, 3, 3, 4, 5, 5, 6, 7, 7, 7, 8]
    const all = items(times)
    const seen = new Set<string>()
    let since: number | null = null
    for (let i = 0; i < 50; i++) {
      const { page, next }: { page: typeof all; next: number | null } = inclusivePage(all, since, 3, (x) => x.t)
      for (const x of page) seen.add(x.id)
      if (next === since) break
      since = next
    }
    expect([...seen].sort()).toEqual(all.map((x) => x.id).sort())
  })
})
