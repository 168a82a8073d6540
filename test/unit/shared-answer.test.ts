import { describe, expect, it } from 'vitest'
import { createSharedAnswers } from '../../core/serving/shared-answer.ts'
import { renderResponse } from '../../core/serving/rendered-json.ts'

describe('shared answers (identical requests in flight)', () => {
  it('computes once for every identical request in flight, and again once it settled', async () => {
    const shared = createSharedAnswers<{ data: { n: number } }>()
    let computed = 0
    let release = () => {}
    const gate = new Promise<void>((r) => (release = r))
    const compute = async () => {
      computed++
      await gate
      return { data: { n: computed } }
    }
    const many = Array.from({ length: 50 }, () => shared('page|a', compute))
    const other = shared('page|b', compute)
    release()
    const answers = await Promise.all(many)
    expect(computed).toBe(2)
    expect(new Set(answers).size).toBe(1)
    expect((await other).data.n).toBe(2)
    await shared('page|a', compute)
    expect(computed).toBe(3)
  })

  it('a failure reaches every sharer and is not kept', async () => {
    const shared = createSharedAnswers<{ data: number }>()
    let calls = 0
    const failing = async () => {
      calls++
      throw new Error('engine down')
    }
    const results = await Promise.allSettled([shared('k', failing), shared('k', failing)])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    expect(calls).toBe(1)
    expect((await shared('k', async () => ({ data: 7 }))).data).toBe(7)
  })

  it('the shared answer renders its parts once: a later change to a part is not seen (parts are fixed once shared)', async () => {
    const shared = createSharedAnswers<{ data: { items: number[] }; chain_id: number }>()
    const answer = await shared('k', async () => ({ data: { items: [1] }, chain_id: 4663 }))
    expect(renderResponse(answer)).toBe('{"data":{"items":[1]},"chain_id":4663}')
    answer.data.items.push(2)
    // The text was made once, on first render: shared answers must not change after they are shared.
    expect(renderResponse(answer)).toBe('{"data":{"items":[1]},"chain_id":4663}')
  })
})
