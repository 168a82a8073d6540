import { describe, expect, it } from 'vitest'
import { mergeTouch, touchedByBatch } from '../../pipelines/process/serving-refresh.ts'

/** Two batches' touched keys as one refresh's (chain-processor.ts defers refreshes while behind). */

const swap = (trader: string, token: string, amountIn = '1', amountOut = '0') => ({ trader, token, token_in: amountIn, token_out: amountOut })

describe('mergeTouch', () => {
  it('unites the keys of two batches, each once, and bounds the legs per pair by both batches’ together', () => {
    const a = touchedByBatch([['swaps', [swap('0xw1', '0xt1'), swap('0xw1', '0xt1'), swap('0xw2', '0xt2')]], ['launches', [{ token: '0xt1' }]]], () => [])
    const b = touchedByBatch([['swaps', [swap('0xw1', '0xt1'), swap('0xw3', '0xt2')]], ['erc20_transfers', [{ token: '0xt3' }]]], () => [])
    const m = mergeTouch(a, b)
    expect([...m.tokens].sort()).toEqual(['0xt1', '0xt2', '0xt3'])
    expect([...m.launched]).toEqual(['0xt1'])
    expect([...m.traders].sort()).toEqual(['0xw1', '0xw2', '0xw3'])
    expect([...m.tradedTokens].sort()).toEqual(['0xt1', '0xt2'])
    expect(m.tradedPairs!.pairs.map((p) => p.join('/')).sort()).toEqual(['0xw1/0xt1', '0xw2/0xt2', '0xw3/0xt2'])
    // 0xw1/0xt1 has 2 legs in a and 1 in b: 3 in the merged range, within the bound.
    expect(m.tradedPairs!.maxLegs).toBeGreaterThanOrEqual(3)
    expect(m.wallets).toBeUndefined()
  })

  it('leaves the pairs to be read back when either batch does not carry them, and keeps refolded wallets', () => {
    const a = touchedByBatch([['swaps', [swap('0xw1', '0xt1')]]], () => [])
    const rollback = { tokens: new Set(['0xt9']), launched: new Set<string>(), traders: new Set<string>(), tradedTokens: new Set<string>(), wallets: new Set(['0xw9']) }
    const m = mergeTouch(a, rollback)
    expect(m.tradedPairs).toBeUndefined()
    expect([...m.wallets!]).toEqual(['0xw9'])
    expect([...m.tokens].sort()).toEqual(['0xt1', '0xt9'])
  })
})
