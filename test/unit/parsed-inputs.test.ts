import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { parsePart } from '../../api/routes.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { IsoCursor, Limit } from '../../core/endpoint/schemas.ts'

/** api/routes.ts parsePart with core/endpoint/parsed-inputs.ts: a path or query parsed once per text. */
describe('parsed request inputs', () => {
  const query = z.object({ since: IsoCursor.optional(), limit: Limit(), tier: z.enum(['free', 'alpha']).optional() })

  it('answers the same query text with the one parse it kept, frozen', () => {
    const a = parsePart(query, { since: '2026-11-27T10:00:00.000001Z', limit: '20' }, 'query')
    const b = parsePart(query, { since: '2026-11-27T10:00:00.000001Z', limit: '20' }, 'query')
    expect(b).toBe(a)
    expect(a).toEqual({ since: '2026-11-27T10:00:00.000001Z', limit: 20 })
    expect(Object.isFrozen(a)).toBe(true)
    // Another text is parsed on its own.
    const c = parsePart(query, { since: '2026-11-27T10:00:00.000002Z', limit: '20' }, 'query')
    expect(c).not.toBe(a)
    expect(c.since).toBe('2026-11-27T10:00:00.000002Z')
  })

  it('never answers one input with the parse of another whose names and values read alike', () => {
    const pair = z.object({ a: z.string(), b: z.string().optional() })
    const plain = parsePart(pair, { a: 'x', b: 'y' }, 'query')
    // Values holding the separators of the kept text, and a repeated name, are keyed apart.
    expect(parsePart(pair, { a: 'x\u0000b\u0001y' }, 'query')).toEqual({ a: 'x\u0000b\u0001y' })
    expect(parsePart(pair, { a: 'x\u0001b\u0000y' }, 'query')).toEqual({ a: 'x\u0001b\u0000y' })
    expect(() => parsePart(pair, { a: ['x', 'y'] }, 'query')).toThrow(ApiError)
    expect(parsePart(pair, { a: 'x', b: 'y' }, 'query')).toBe(plain)
    expect(parsePart(pair, { b: 'y', a: 'x' }, 'query')).toEqual(plain)
  })

  it('keeps no failure: the same bad text is refused each time, and a good parse of a like text is not disturbed', () => {
    const bad = { limit: '0' }
    expect(() => parsePart(query, bad, 'query')).toThrow(ApiError)
    expect(() => parsePart(query, bad, 'query')).toThrow(/limit/)
    expect(() => parsePart(query, { limit: '' }, 'query')).toThrow(/expected a number, got an empty value/)
    expect(parsePart(query, { limit: '1' }, 'query')).toEqual({ limit: 1 })
  })

  it('keeps no parse of a long input: a flood of long distinct query strings does not grow the cache', () => {
    // Unknown parameters are dropped by the schema, but the text they make is the cache's key.
    const long = { limit: '7', pad: 'x'.repeat(600) }
    const a = parsePart(query, long, 'query')
    const b = parsePart(query, long, 'query')
    expect(a).toEqual({ limit: 7 })
    expect(b).toEqual(a)
    expect(b).not.toBe(a)
    expect(Object.isFrozen(a)).toBe(false)
  })

  it('keeps parses per schema (the same text under another schema is its own parse) and never keeps bodies', () => {
    const other = z.object({ limit: z.string() })
    expect(parsePart(other, { limit: '5' }, 'query')).toEqual({ limit: '5' })
    expect(parsePart(query, { limit: '5' }, 'query')).toEqual({ limit: 5 })
    const body = z.object({ n: z.number() })
    const x = parsePart(body, { n: 1 }, 'body')
    const y = parsePart(body, { n: 1 }, 'body')
    expect(y).not.toBe(x)
    expect(Object.isFrozen(x)).toBe(false)
  })
})

describe('parsed GET requests, kept per URL', async () => {
  const { keepRequestParse, keptRequestParse } = await import('../../core/endpoint/parsed-inputs.ts')
  it('answers a URL with the parse kept for it, frozen, per endpoint; a long URL is not kept', () => {
    const endpoint = {}
    const other = {}
    const parsed = { params: { address: '0xab' }, query: {}, body: {} }
    expect(keptRequestParse(endpoint, '/token/0xab')).toBeUndefined()
    expect(keepRequestParse(endpoint, '/token/0xab', parsed)).toBe(parsed)
    expect(keptRequestParse(endpoint, '/token/0xab')).toBe(parsed)
    expect(Object.isFrozen(parsed)).toBe(true)
    expect(keptRequestParse(other, '/token/0xab')).toBeUndefined()
    const long = `/token/0xab?pad=${'x'.repeat(600)}`
    keepRequestParse(endpoint, long, { params: {}, query: {}, body: {} })
    expect(keptRequestParse(endpoint, long)).toBeUndefined()
  })
})
