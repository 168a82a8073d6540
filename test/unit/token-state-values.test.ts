import { describe, expect, it } from 'vitest'
import type { TokenSourceRow, TokenStateInput } from '../../products/token/token-state-inputs.ts'
import { ethUsdFromWindow, MAX_VALUES_DECIMALS, tokenStateValues, unixSecondsOf } from '../../products/token/token-state-values.ts'

const HEAD = 1_800_003_600
const window = { from: HEAD - 3_600, to: HEAD }
const candle = (minute: number, close: string): TokenSourceRow => ({ source: 'candle', key: String(minute), fields: JSON.stringify({ close }) })
const quoted = (token: string, at: number): TokenStateInput => ({ token, quoted: 1, quoted_at: at })
const candles = [candle(HEAD - 600, '3000.5'), candle(HEAD - 120, '3001'), candle(HEAD - 60, '3002.25')]

describe('ethUsdFromWindow()', () => {
  it('takes the latest candle at or before each quote; an unquoted row takes none', () => {
    const closes = ethUsdFromWindow(
      [quoted('0xa', HEAD - 100), quoted('0xb', HEAD - 60), quoted('0xc', HEAD), { token: '0xd', quoted: 0 }],
      [...candles, { source: 'activity', key: '0xa', fields: '{}' }],
      window,
      { quotedFrom: HEAD - 86_400 - 100, quotedTo: HEAD },
    )
    expect(closes && Object.fromEntries(closes)).toEqual({ '0xa': '3001', '0xb': '3002.25', '0xc': '3002.25' })
  })

  it('gives null where the insert range starts after the latest candle, as the ASOF join would', () => {
    const closes = ethUsdFromWindow([quoted('0xa', HEAD - 100)], candles, window, { quotedFrom: HEAD - 110, quotedTo: HEAD - 100 })
    expect(closes?.get('0xa')).toBeNull()
  })

  it('answers nothing when a quote has no candle in the window and the insert range reaches before it', () => {
    expect(ethUsdFromWindow([quoted('0xa', HEAD - 700)], candles, window, { quotedFrom: HEAD - 700 - 86_400, quotedTo: HEAD - 700 })).toBeUndefined()
    expect(ethUsdFromWindow([quoted('0xa', HEAD - 4_000)], candles, window, { quotedFrom: HEAD - 4_000 - 86_400, quotedTo: HEAD })).toBeUndefined()
    // A quote after the window's end (no batch makes one): nothing either.
    expect(ethUsdFromWindow([quoted('0xa', HEAD + 1)], candles, window, { quotedFrom: 0, quotedTo: HEAD + 1 })).toBeUndefined()
  })

  it('gives null without a candle when the insert range lies inside the window', () => {
    const closes = ethUsdFromWindow([quoted('0xa', HEAD - 700)], candles, window, { quotedFrom: HEAD - 800, quotedTo: HEAD - 700 })
    expect(closes?.get('0xa')).toBeNull()
  })
})

describe('tokenStateValues()', () => {
  it('derives the columns token-state-insert.sql derives', () => {
    const row = tokenStateValues(
      {
        token: '0xt', symbol: 'ÄbC', name: 'My Token', decimals: 6, created: 1, created_at: '2027-01-15T08:00:00Z', launched: 1,
        launched_at: '2027-01-15 08:00:02', swaps: '0', quoted: 1, quoted_at: 5, quote_ratio: 2.5, first_real_block: '12', first_real_at: '2027-01-15T08:00:04Z',
      },
      4663, 9, '3001',
    )
    expect(row).toMatchObject({
      chain_id: 4663, version: 9, symbol_lower: 'Äbc', name_lower: 'my token', real_block: '12', real_at: '2027-01-15T08:00:04Z',
      price_weth: 2.5 * 1e-12, eth_usd: '3001', last_activity: unixSecondsOf('2027-01-15T08:00:02Z'),
    })
    expect(row).not.toHaveProperty('quoted_at')
    expect(row).not.toHaveProperty('quote_ratio')
    expect(row).not.toHaveProperty('first_real_block')
  })

  it('takes the last swap, else the launch, else the creation as the last activity; unquoted rows have no price', () => {
    const base = { token: '0xt', created: 1, created_at: '2027-01-15 08:00:00', launched: 0, quoted: 0 }
    expect(tokenStateValues(base, 1, 1, null)).toMatchObject({ last_activity: unixSecondsOf('2027-01-15T08:00:00Z'), price_weth: 0, eth_usd: null })
    expect(tokenStateValues({ ...base, swaps: '3', last_swap_time: '2027-01-15T09:00:00Z' }, 1, 1, null)?.last_activity).toBe(unixSecondsOf('2027-01-15 09:00:00'))
    expect(tokenStateValues({ token: '0xt', created: 0, launched: 0, quoted: 0 }, 1, 1, null)?.last_activity).toBe(0)
  })

  it('leaves a row that declares more decimals than MAX_VALUES_DECIMALS to the insert', () => {
    const row = { token: '0xt', quoted: 1, quote_ratio: 1 }
    expect(tokenStateValues({ ...row, decimals: MAX_VALUES_DECIMALS }, 1, 1, null)?.price_weth).toBe(Number(`1e${MAX_VALUES_DECIMALS - 18}`))
    expect(tokenStateValues({ ...row, decimals: MAX_VALUES_DECIMALS + 1 }, 1, 1, null)).toBeUndefined()
  })

  it('unixSecondsOf() reads both DateTime spellings as UTC and refuses anything else', () => {
    expect(unixSecondsOf('1970-01-01 00:01:05')).toBe(65)
    expect(unixSecondsOf('1970-01-01T00:01:05Z')).toBe(65)
    expect(unixSecondsOf('1970-01-01T00:01:05')).toBe(65)
    expect(() => unixSecondsOf('yesterday')).toThrow(/not a DateTime/)
  })
})
