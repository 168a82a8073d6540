import { describe, expect, it } from 'vitest'
import { deferOne } from '../../pipelines/process/deferred-refresh.ts'
import type { ServingTouch } from '../../pipelines/process/serving-refresh.ts'

const touch = (k: string, extra: Partial<ServingTouch> = {}): ServingTouch => ({
  tokens: new Set([`t${k}`, 'shared']), launched: new Set([`l${k}`]), traders: new Set([`w${k}`]), tradedTokens: new Set([`t${k}`]),
  tradedPairs: { pairs: [[`w${k}`, `t${k}`]], maxLegs: 1 }, ...extra,
})

describe('touches of deferred batches', () => {
  it('keeps the first batch\'s first block and the union of every key set', () => {
    const d = deferOne(deferOne(deferOne(null, 100, touch('a')), 250, touch('b')), 400, touch('c', { wallets: new Set(['x']) }))
    expect(d.fromBlock).toBe(100)
    expect([...d.touch.tokens].sort()).toEqual(['shared', 'ta', 'tb', 'tc'])
    expect([...d.touch.launched].sort()).toEqual(['la', 'lb', 'lc'])
    expect([...d.touch.traders].sort()).toEqual(['wa', 'wb', 'wc'])
    expect([...d.touch.tradedTokens].sort()).toEqual(['ta', 'tb', 'tc'])
    expect([...d.touch.wallets!]).toEqual(['x'])
  })

  it('leaves the FIFO pairs to be read over the deferred blocks (their leg counts do not add up per batch)', () => {
    expect(deferOne(null, 1, touch('a')).touch.tradedPairs).toBeUndefined()
    expect(deferOne(deferOne(null, 1, touch('a')), 2, touch('b')).touch.tradedPairs).toBeUndefined()
  })

  it('does not change the touches it merged', () => {
    const first = deferOne(null, 1, touch('a'))
    deferOne(first, 2, touch('b'))
    expect([...first.touch.tokens].sort()).toEqual(['shared', 'ta'])
  })
})
