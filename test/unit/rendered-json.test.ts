import { describe, expect, it } from 'vitest'
import { renderOnce, renderResponse, responseBytes } from '../../core/serving/rendered-json.ts'

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
      // Below the envelope: a data object and its lists of kept items (a feed page).
      { data: { launches: [part, part, undefined, () => 1, null, 3], next: null, gone: undefined }, chain_id: 1 },
      { data: { list: [part, , part] } },
      { data: { list: [1, part], deep: { deeper: { part }, when: new Date(0), map: new Map([[1, 2]]) } } },
      { data: { withJson: { toJSON: () => 'x', part }, proto: Object.assign(Object.create({ inherited: 1 }), { own: part }) } },
      { data: Object.assign(Object.create(null), { bare: part }) },
    ]
    for (const c of cases) expect(renderResponse(c)).toBe(JSON.stringify(c))
  })

  it("reuses the text of kept items in a data object's list, and of a list's later kept items", () => {
    const a = renderOnce({ v: 1 })
    const b = renderOnce({ v: 2 })
    const first = renderResponse({ data: { items: [a, b], next: 'x' } })
    a.v = 10
    b.v = 20
    expect(renderResponse({ data: { items: [a, b], next: 'x' } })).toBe(first)
    // A kept data object (a shared answer) is written once from its items' kept text too.
    expect(renderResponse({ data: renderOnce({ items: [b, a] }) })).toBe('{"data":{"items":[{"v":2},{"v":1}]}}')
    // A list whose first element is not kept is written afresh, whole.
    expect(renderResponse({ data: { items: [{ v: 0 }, a] } })).toBe('{"data":{"items":[{"v":0},{"v":10}]}}')
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

describe('response bytes', () => {
  it('are the JSON text as UTF-8, made once per kept part and envelope values', () => {
    const part = renderOnce({ token: 'é\u2028', n: 1 })
    const a = responseBytes({ data: part, chain_id: 4663, measured_through_block: 12 })
    expect(a.toString('utf8')).toBe(JSON.stringify({ data: part, chain_id: 4663, measured_through_block: 12 }))
    expect(responseBytes({ data: part, chain_id: 4663, measured_through_block: 12 })).toBe(a)
    // Another envelope value (the next batch's block) is another body.
    const b = responseBytes({ data: part, chain_id: 4663, measured_through_block: 13 })
    expect(b).not.toBe(a)
    expect(JSON.parse(b.toString('utf8')).measured_through_block).toBe(13)
    // The key tells a string from a number with the same text, and undefined from absent.
    expect(JSON.parse(responseBytes({ data: part, cursor: '13' }).toString()).cursor).toBe('13')
    expect(JSON.parse(responseBytes({ data: part, cursor: 13 }).toString()).cursor).toBe(13)
    expect(responseBytes({ data: part, cursor: undefined }).toString()).toBe(JSON.stringify({ data: part }))
  })

  it('are made afresh for anything but one kept part with plain values beside it', () => {
    const part = renderOnce({ v: 1 })
    for (const c of [{ data: { v: 1 }, chain_id: 1 }, { data: part, other: part }, { data: part, list: [1] }, [part], null, 'x']) {
      expect(responseBytes(c).toString('utf8')).toBe(JSON.stringify(c))
    }
    const unmarked = { v: 1 }
    responseBytes({ data: unmarked })
    unmarked.v = 2
    expect(responseBytes({ data: unmarked }).toString()).toBe('{"data":{"v":2}}')
  })

  it('of an answer marked kept whole are made once, from its kept parts, and given again for it', () => {
    const part = renderOnce({ token: 'é', n: 1 })
    const whole = renderOnce({ data: part, chain_id: 4663, measured_through_block: 12 })
    const bytes = responseBytes(whole)
    expect(bytes.toString('utf8')).toBe(JSON.stringify(whole))
    expect(responseBytes(whole)).toBe(bytes)
    // The same values in another object: the same text, from its own bytes.
    const again = responseBytes({ data: part, chain_id: 4663, measured_through_block: 12 })
    expect(again.equals(bytes)).toBe(true)
  })
})
