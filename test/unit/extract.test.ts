import { describe, expect, it } from 'vitest'
import { extractTokenRefs, resolveRefs, type TokenRefs } from '../../pipelines/social/extract.ts'

const A = '0x' + 'a'.repeat(40)
const B = '0x' + '1234567890abcdef'.repeat(2) + '12345678'
const C = '0x' + 'c0ffee'.repeat(6) + 'c0ff'
const MIXED = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01'

const refs = (text: string, links: string[] = []) => extractTokenRefs({ text, links })

describe('extractTokenRefs()', () => {
  it('extractTokenRefs() finds an address in the text, lowercased', () => {
    expect(refs(`ca: ${MIXED}`)).toEqual({ addresses: [MIXED.toLowerCase()], cashtags: [] })
  })

  it('extractTokenRefs() finds addresses inside explorer and dex links', () => {
    const r = refs('chart below', [`https://explorer.example/token/${A}`, `https://dex.example/4663/${MIXED}?ref=x`])
    expect(r.addresses).toEqual([A, MIXED.toLowerCase()])
  })

  it('extractTokenRefs() dedupes addresses across case, text and links, in order of first appearance', () => {
    const r = refs(`${B} and ${A} and again ${A.toUpperCase().replace('0X', '0x')}`, [`https://dex.example/${B}`, `https://x.example/${C}`])
    expect(r.addresses).toEqual([B, A, C])
  })

  it('extractTokenRefs() ignores hex that is not exactly 40 digits', () => {
    const txHash = '0x' + 'ab'.repeat(32)
    expect(refs(`tx ${txHash} and short 0x${'a'.repeat(39)} and long 0x${'a'.repeat(41)}`).addresses).toEqual([])
    expect(refs('x', [`https://explorer.example/tx/${txHash}`]).addresses).toEqual([])
  })

  it('extractTokenRefs() ignores an address glued to a word or other hex', () => {
    expect(refs(`foo${A} 1${A} ${A}z ${A}_`).addresses).toEqual([])
    expect(refs(`(${A}), "${A}".`).addresses).toEqual([A])
  })

  it('extractTokenRefs() takes an address followed by punctuation or a path', () => {
    expect(refs(`look:${A}! ${B}/chart ${C}.`).addresses).toEqual([A, B, C])
  })

  it('extractTokenRefs() finds cashtags, uppercased and deduped', () => {
    expect(refs('$pepo and $PEPO and $PePo, also $DOGE2').cashtags).toEqual(['PEPO', 'DOGE2'])
  })

  it('extractTokenRefs() ignores dollar amounts', () => {
    expect(refs('put $100 in, took $5k out, $1.5m mcap, $0.0001 entry, $5K').cashtags).toEqual([])
  })

  it('extractTokenRefs() takes cashtags of 2 to 10 characters only', () => {
    expect(refs('$A $AB $ABCDEFGHIJ $ABCDEFGHIJK').cashtags).toEqual(['AB', 'ABCDEFGHIJ'])
  })

  it('extractTokenRefs() needs the cashtag to stand as its own word', () => {
    expect(refs('US$PEPO a$DOGE $$MOON $TURBO_x').cashtags).toEqual([])
    expect(refs('($PEPO) "$DOGE", $MOON! $GIGA.').cashtags).toEqual(['PEPO', 'DOGE', 'MOON', 'GIGA'])
  })

  it('extractTokenRefs() reads cashtags in the text only, not in links', () => {
    expect(refs('no tag here', ['https://dex.example/?q=$PEPO']).cashtags).toEqual([])
  })

  it('extractTokenRefs() finds both kinds in one post', () => {
    expect(refs(`$PEPO ${A} $100`, [`https://dex.example/${B}`])).toEqual({ addresses: [A, B], cashtags: ['PEPO'] })
  })

  it('extractTokenRefs() returns empty lists for a post without references', () => {
    expect(refs('gm, market is slow today')).toEqual({ addresses: [], cashtags: [] })
    expect(refs('')).toEqual({ addresses: [], cashtags: [] })
  })
})

describe('resolveRefs()', () => {
  // PEPO: two tokens (A, B); DOGE: one (C); MOON: none.
  const symbols: Record<string, string[]> = { PEPO: [A, B], DOGE: [C] }
  const lookup = (s: string) => symbols[s] ?? []
  const known = new Set([A, B, C])
  const isKnown = (a: string) => known.has(a)
  const resolve = (r: Partial<TokenRefs>) => resolveRefs({ addresses: [], cashtags: [], ...r }, lookup, isKnown)

  it('resolveRefs() resolves a known address to itself', () => {
    expect(resolve({ addresses: [C] })).toEqual([{ token: C, via: 'address', symbol: null, ambiguous: false }])
  })

  it('resolveRefs() drops an address that is not a known token', () => {
    expect(resolve({ addresses: ['0x' + '9'.repeat(40)] })).toEqual([])
  })

  it('resolveRefs() resolves a cashtag held by exactly one token', () => {
    expect(resolve({ cashtags: ['DOGE'] })).toEqual([{ token: C, via: 'cashtag', symbol: 'DOGE', ambiguous: false }])
  })

  it('resolveRefs() reports a shared symbol as ambiguous, never guessing', () => {
    expect(resolve({ cashtags: ['PEPO'] })).toEqual([{ token: null, via: 'cashtag', symbol: 'PEPO', ambiguous: true }])
  })

  it('resolveRefs() drops a cashtag no token has', () => {
    expect(resolve({ cashtags: ['MOON'] })).toEqual([])
  })

  it('resolveRefs() lets the post’s address settle its ambiguous cashtag', () => {
    expect(resolve({ addresses: [B], cashtags: ['PEPO'] })).toEqual([{ token: B, via: 'address', symbol: 'PEPO', ambiguous: false }])
  })

  it('resolveRefs() gives one entry per token when the address and the unique cashtag agree', () => {
    expect(resolve({ addresses: [C], cashtags: ['DOGE'] })).toEqual([{ token: C, via: 'address', symbol: 'DOGE', ambiguous: false }])
  })

  it('resolveRefs() keeps unrelated references side by side', () => {
    expect(resolve({ addresses: [A, '0x' + '9'.repeat(40)], cashtags: ['DOGE', 'MOON'] })).toEqual([
      { token: A, via: 'address', symbol: null, ambiguous: false },
      { token: C, via: 'cashtag', symbol: 'DOGE', ambiguous: false },
    ])
  })

  it('resolveRefs() dedupes repeated addresses and lookups that repeat a token', () => {
    const r = resolveRefs({ addresses: [C, C.toUpperCase().replace('0X', '0x')], cashtags: ['DOGE'] }, () => [C, C.toUpperCase().replace('0X', '0x')], isKnown)
    expect(r).toEqual([{ token: C, via: 'address', symbol: 'DOGE', ambiguous: false }])
    expect(resolveRefs({ addresses: [], cashtags: ['DOGE'] }, () => [C, C], isKnown)).toEqual([{ token: C, via: 'cashtag', symbol: 'DOGE', ambiguous: false }])
  })

  it('resolveRefs() works on extractTokenRefs() output end to end', () => {
    const post = { text: `$pepo $doge $moon $100 ${'0x' + '9'.repeat(40)}`, links: [`https://explorer.example/token/${A.toUpperCase().replace('0X', '0x')}`] }
    expect(resolveRefs(extractTokenRefs(post), lookup, isKnown)).toEqual([
      { token: A, via: 'address', symbol: 'PEPO', ambiguous: false },
      { token: C, via: 'cashtag', symbol: 'DOGE', ambiguous: false },
    ])
  })

  it('resolveRefs() reports two ambiguous symbols as two entries', () => {
    const lk = (s: string) => (s === 'PEPO' ? [A, B] : s === 'GIGA' ? [B, C] : [])
    expect(resolveRefs({ addresses: [], cashtags: ['PEPO', 'GIGA'] }, lk, isKnown)).toEqual([
      { token: null, via: 'cashtag', symbol: 'PEPO', ambiguous: true },
      { token: null, via: 'cashtag', symbol: 'GIGA', ambiguous: true },
    ])
  })

  it('resolveRefs() returns nothing for nothing', () => {
    expect(resolve({})).toEqual([])
  })
})
