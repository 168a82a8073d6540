import { describe, expect, it } from 'vitest'
import { jsonLinesUpTo, quotedRange, tokenStateInputs, type TokenSourceRow } from '../../products/token/token-state-inputs.ts'

const row = (source: TokenSourceRow['source'], key: string, fields: Record<string, unknown>): TokenSourceRow => ({ source, key, fields: JSON.stringify(fields) })

describe('token_state inputs merged from their sources', () => {
  it('merges every source of a token, the launch pool\'s liquidity, and flags what it has', () => {
    const rows = tokenStateInputs(['0xa'], new Set(), [
      row('created', '0xa', { deployer: '0xd', decimals: 18 }),
      row('launched', '0xa', { launch_pool: '0xp', launch_block: '7' }),
      row('activity', '0xa', { swaps: '3' }),
      row('quoted', '0xa', { quote: ['1', '2', '0xp', '2026-11-26T00:00:00Z', '9'], quoted_at: '1795651200' }),
      row('liquidity', '0xp', { liquidity_added: '5' }),
      row('liquidity', '0xa', { liquidity_added: '999' }),
      row('kept', '0xa', { prelaunch_recipients: '4' }),
    ])
    expect(rows).toEqual([{
      token: '0xa', deployer: '0xd', decimals: 18, launch_pool: '0xp', launch_block: '7', swaps: '3',
      quote: ['1', '2', '0xp', '2026-11-26T00:00:00Z', '9'], quoted_at: '1795651200', liquidity_added: '5',
      prelaunch_recipients: '4', present: 1, created: 1, launched: 1, is_real: 0, quoted: 1,
    }])
  })

  it('takes a launch of this batch\'s distribution as computed now, else the kept one, else 0', () => {
    const sources = [
      row('created', '0xa', {}), row('created', '0xb', {}), row('created', '0xc', {}),
      row('kept', '0xa', { prelaunch_recipients: '4' }), row('kept', '0xb', { prelaunch_recipients: '6' }),
      row('prelaunch', '0xa', { prelaunch_recipients: '11' }),
    ]
    const byToken = Object.fromEntries(tokenStateInputs(['0xa', '0xb', '0xc'], new Set(['0xa', '0xc']), sources).map((r) => [r.token, r.prelaunch_recipients]))
    expect(byToken).toEqual({ '0xa': '11', '0xb': '6', '0xc': 0 })
  })

  it('writes no row for a key that never was ours, a tombstone for one that was (naming the deployer it had)', () => {
    const rows = tokenStateInputs(['0xweth', '0xgone', '0xlaunched'], new Set(), [
      row('activity', '0xweth', { swaps: '1' }),
      row('kept', '0xgone', { prelaunch_recipients: '2', deployer: '0xd' }),
      row('launched', '0xlaunched', { launch_pool: '0xp' }),
    ])
    expect(rows).toEqual([
      { token: '0xgone', deployer: '0xd', prelaunch_recipients: '2', present: 0, created: 0, launched: 0, is_real: 0, quoted: 0 },
      { token: '0xlaunched', deployer: '', launch_pool: '0xp', prelaunch_recipients: 0, present: 1, created: 0, launched: 1, is_real: 0, quoted: 0 },
    ])
  })

  it('reads candles from a day before the earliest quote to the latest, none when nothing is quoted', () => {
    expect(quotedRange([{ token: 'a', quoted_at: '200000' }, { token: 'b', quoted_at: 150000 }, { token: 'c' }])).toEqual({ quotedFrom: 150000 - 86400, quotedTo: 200000 })
    const none = quotedRange([{ token: 'c' }])
    expect(none.quotedFrom).toBeGreaterThan(none.quotedTo)
  })
})

describe('rows as JSON lines in bounded pieces', () => {
  it('keeps every row once, in order, each piece within the bound unless one row alone exceeds it', () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ i, pad: 'x'.repeat(i % 7 === 0 ? 120 : 10) }))
    const pieces = [...jsonLinesUpTo(rows, 100)]
    expect(pieces.flatMap((p) => p.text.split('\n').map((l) => JSON.parse(l)))).toEqual(rows)
    expect(pieces.flatMap((p) => p.rows)).toEqual(rows)
    for (const p of pieces) if (p.rows.length > 1) expect(p.text.length).toBeLessThanOrEqual(100)
    expect(pieces.length).toBeGreaterThan(5)
    expect([...jsonLinesUpTo([], 100)]).toEqual([])
  })
})
