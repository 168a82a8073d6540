import { describe, expect, it } from 'vitest'
import { renderOnce, renderResponse } from '../../core/serving/rendered-json.ts'

describe('responses rendered with kept parts', () => {
  it('writes exactly what JSON.stringify writes, marked parts or not', () => {
    const part = renderOnce({ token: '0xab"\\\u2028', n: 1, nested: { a: [1, null, 'x'] }, gone: undefined })
    const cases: unknown[] = [
      { data: part, chain_id: 4663, measured_through_block: 12 },
      { data: part, measured_through_block: null, skipped: undefined, f: () => 1, list: [part, 2] },
      { 'quo"ted': part, plain: { a: 1 } },
      [part],
      'text',
      null,
    ]
    for (const c of cases) expect(renderResponse(c)).toBe(JSON.stringify(c))
  })

  it("reuses a marked part's text: a change after marking is not seen (parts are kept, never changed)", () => {
    const part = renderOnce({ v: 1 })
    const first = renderResponse({ data: part })
    part.v = 2
    expect(renderResponse({ data: part })).toBe(first)
    const unmarked = { v: 1 }
    renderResponse({ data: unmarked })
    unmarked.v = 2
    expect(renderResponse({ data: unmarked })).toBe('{"data":{"v":2}}')
  })
})
