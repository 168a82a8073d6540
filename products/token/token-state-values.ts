import type { TokenSourceRow, TokenStateInput } from './token-state-inputs.ts'

/**
 * token_state rows made whole in the processor, for a live batch to insert as values: planning
 * token-state-insert.sql's `INSERT ... SELECT` (its input schema, the ASOF join of the ETH/USD
 * candles) cost a live batch about twice the insert itself (measurements.md, stop 77). The
 * derivations are that statement's, one for one, and a test holds the two to the same rows.
 */

/** The candles a live batch reads beside its token sources: the hour before its head (token-candle-source.sql). */
export const CANDLE_WINDOW_SECONDS = 3_600

/** The candle window a batch read: [from, to], unix s. */
export interface CandleWindow {
  from: number
  to: number
}

/**
 * The ETH/USD close each quoted row takes, as the insert's ASOF join gives it: the close of the
 * latest candle at or before the quote's time, when that candle is inside the insert's range
 * (`quotedFrom` .. `quotedTo`, token-state-inputs.ts `quotedRange`), else null. Answered from the
 * window's candles (sources of kind `candle`), or undefined when a quote's candle may lie before
 * the window (the rows are then written by the insert, which reads the candles it needs).
 */
export function ethUsdFromWindow(
  rows: readonly TokenStateInput[],
  sources: readonly TokenSourceRow[],
  window: CandleWindow,
  range: { quotedFrom: number; quotedTo: number },
): Map<string, string | null> | undefined {
  const candles = sources
    .filter((r) => r.source === 'candle')
    .map((r) => ({ minute: Number(r.key), close: (JSON.parse(r.fields) as { close: string }).close }))
    .sort((a, b) => a.minute - b.minute)
  const closes = new Map<string, string | null>()
  for (const row of rows) {
    if (!row.quoted) continue
    const at = Number(row.quoted_at)
    if (at > window.to) return undefined
    let latest: (typeof candles)[number] | undefined
    for (const c of candles) {
      if (c.minute > at) break
      latest = c
    }
    // Every candle from the window's start to the quote was read: the latest of them is the
    // latest at or before the quote. Without one, the answer is before the window, unless the
    // insert's range starts inside it.
    if (latest) closes.set(row.token, latest.minute >= range.quotedFrom ? latest.close : null)
    else if (window.from <= range.quotedFrom) closes.set(row.token, null)
    else return undefined
  }
  return closes
}

/**
 * The most decimals a row made here may declare: `pow(10, e)` in the engine is the nearest double
 * to 10^e (as a literal parses) up to here, not for some larger e (126, 165, ...). A token's
 * supply fits in 78 digits; a row that declares more is written by the insert.
 */
export const MAX_VALUES_DECIMALS = 77

/** `pow(10, e)` as the engine computes it, for e up to MAX_VALUES_DECIMALS - 18. */
function powerOfTen(e: number): number {
  return Number(`1e${e}`)
}

/** ClickHouse's `lower()`: ASCII letters only. */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase())
}

/** Unix seconds of a DateTime as the sources print it ('YYYY-MM-DD hh:mm:ss' or ISO 8601, UTC). */
export function unixSecondsOf(value: unknown): number {
  const text = String(value)
  // Without a zone, Date.parse would read the time as local: a DateTime here is always UTC.
  const iso = /(Z|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text.replace(' ', 'T')}Z`
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) throw new Error(`not a DateTime: ${text}`)
  return Math.floor(ms / 1000)
}

/**
 * The token_state row of an input row (tokenStateInputs), as token-state-insert.sql writes it:
 * the real block under its column names, the names lower-cased, the WETH price of the quote with
 * decimals applied, the ETH/USD close given, the last activity. A field the input lacks takes its
 * column's default on insert, as in the statement's input. Undefined for a row that declares more
 * than MAX_VALUES_DECIMALS decimals.
 */
export function tokenStateValues(input: TokenStateInput, chainId: number, version: number, ethUsd: string | null): Record<string, unknown> | undefined {
  const { quoted_at: _quotedAt, quote_ratio: ratio, first_real_block: realBlock, first_real_at: realAt, ...fields } = input
  const decimals = fields.decimals === undefined || fields.decimals === null ? 18 : Number(fields.decimals)
  if (decimals > MAX_VALUES_DECIMALS) return undefined
  const lastActivity = Number(fields.swaps ?? 0) > 0
    ? unixSecondsOf(fields.last_swap_time)
    : fields.launched ? unixSecondsOf(fields.launched_at) : fields.created ? unixSecondsOf(fields.created_at) : 0
  return {
    ...fields,
    chain_id: chainId,
    symbol_lower: asciiLower(String(fields.symbol ?? '')),
    name_lower: asciiLower(String(fields.name ?? '')),
    ...(realBlock === undefined ? {} : { real_block: realBlock }),
    ...(realAt === undefined ? {} : { real_at: realAt }),
    price_weth: fields.quoted ? Number(ratio ?? 0) * powerOfTen(decimals - 18) : 0,
    eth_usd: ethUsd,
    last_activity: lastActivity,
    version,
  }
}
