import type { ClickHouseClient } from '../../../core/clickhouse.ts'
import { queryRows } from '../../../core/clickhouse.ts'
import { dlq, hold, ok, type Step } from '../../consumer/step-result.ts'
import { candleStart, lamportsToMicroUsd, priceE8, SOL_CANDLE_SECONDS, type SolanaTrade } from '../../records/solana.ts'

/** A trade with its quote leg valued in micro-USD, as solana_trades stores it. */
export interface SolanaTradeRow {
  signature: string
  slot: number
  block_time: number
  wallet: string
  mint: string
  side: 'buy' | 'sell'
  token_qty: string
  quote: 'SOL' | 'USD'
  quote_amount: string
  usd_micro: string
  sol_usd_close: string
}

/** Candles read per lookup: trades arrive in time order, so the next windows are read along. */
const READ_AHEAD = 2_000
/** Candle closes kept in memory (about a week of windows). */
const MAX_KEPT = 4_000
/**
 * How often a held trade's window is looked up again. Its candle comes only once the 300-second
 * window has closed, while a held batch is delivered again every flush (about a second): without
 * this, each delivery read the candles again for nothing.
 */
const RECHECK_MS = 5_000

/**
 * Values each trade's quote leg in micro-USD, once, at ingest: a USD leg as is, a SOL leg at
 * the close of the 5-minute SOL/USD candle holding the trade's block time
 * (`lamportsToMicroUsd`: rounded down). A trade whose candle is not in yet is held (it and the
 * trades behind it wait for a later delivery), so trades are stored in order and only once
 * they can be valued; a trade whose window was skipped by the candle feed (a later candle is
 * in, its own never came) is dead-lettered.
 */
export function createUsdLegStep(deps: { ch: ClickHouseClient }): Step<SolanaTrade, SolanaTradeRow> {
  const closes = new Map<number, string>()
  /** The window last looked up and not found, and when. */
  let missed: { start: number; at: number } | undefined

  /** Read the candles from `from` on; answers whether `from` is skipped (later windows in, its own not). */
  async function load(from: number): Promise<{ skipped: boolean }> {
    // One read: the candle feed inserts windows in order, so later windows without this one is a gap.
    const rows = await queryRows<{ s: number; close: string }>(
      deps.ch,
      `SELECT toUnixTimestamp(start) AS s, toString(close) AS close FROM sol_usd_candles
       WHERE start >= toDateTime({from:UInt32}, 'UTC') ORDER BY start LIMIT {n:UInt32}`,
      { from, n: READ_AHEAD },
    )
    if (closes.size + rows.length > MAX_KEPT) closes.clear()
    for (const r of rows) closes.set(Number(r.s), r.close)
    return { skipped: rows.length > 0 && Number(rows[0]!.s) > from }
  }

  return {
    name: 'usd-leg',
    async run(t) {
      const row = (usd: bigint, close: string): SolanaTradeRow => ({ ...t, usd_micro: usd.toString(), sol_usd_close: close })
      if (t.quote === 'USD') return ok(row(BigInt(t.quote_amount), '0'))
      const start = candleStart(t.block_time)
      if (!closes.has(start) && missed?.start === start && Date.now() - missed.at < RECHECK_MS) return hold(`waiting for the SOL/USD candle of ${start}`)
      const skipped = closes.has(start) ? false : (await load(start)).skipped
      if (!closes.has(start) && !skipped) missed = { start, at: Date.now() }
      const close = closes.get(start)
      if (close !== undefined) return ok(row(lamportsToMicroUsd(BigInt(t.quote_amount), priceE8(close)), close))
      if (skipped) return dlq(`no_sol_usd_candle: the ${SOL_CANDLE_SECONDS}-second window at ${start} has no candle and later ones do`)
      return hold(`waiting for the SOL/USD candle of ${start}`)
    },
  }
}
