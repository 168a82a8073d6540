import { formatEther } from 'viem'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { FIFO_STATE } from './fifo-sql.ts'
import { medianHoldSql } from './hold-median.ts'

/**
 * A tracked wallet's receipt (issue 12, DESIGN §7), read by key from what the chain processor keeps
 * (migration 021): the wallet's FIFO state per token (fifo_state), its matched sells by time
 * (fifo_sells), the tokens' latest swap (token_last_swap, read apart: a price moves without the
 * wallet), the latest leaderboard
 * (leaderboard_claims) and ETH/USD candles (price_candles), and its closed lots' holds counted per
 * hold (fifo_hold_counts). No read grows with the wallet's number of legs: its states are one row
 * per token, its 30-day result one key range of its sells, its holds one row per distinct hold.
 */

export const HOLD_LABELS = ['scalper', 'swing', 'holder'] as const
export type HoldLabel = (typeof HOLD_LABELS)[number]

/** scalper: median hold under 1 h; swing: under 7 days; holder: beyond. */
export function holdLabel(medianSeconds: number | null): HoldLabel | null {
  if (medianSeconds === null) return null
  return medianSeconds < 3600 ? 'scalper' : medianSeconds < 7 * 86_400 ? 'swing' : 'holder'
}

export const CLAIM_WINDOW_SECONDS = 30 * 86_400

/** The 30 days a claim covers, (from, to] in unix seconds: they end at its claimed_at. */
export const claimWindow = (claim: { claimedAt: number }) => ({ from: claim.claimedAt - CLAIM_WINDOW_SECONDS, to: claim.claimedAt })

export interface RosterClaim {
  source: string
  wallet: string
  rank: number
  claimedPnlUsd30d: number
  /** Unix seconds. */
  claimedAt: number
}

/** The latest leaderboard: its (claimed_at, source) and its claims by wallet. */
export interface Roster {
  id: string
  claims: Map<string, RosterClaim>
}

/** The latest leaderboard's identity, read from the end of the (claimed_at, source) key. */
export async function latestLeaderboardId(ch: ClickHouseClient): Promise<string> {
  const [r] = await queryRows<{ at: number; source: string }>(ch, 'SELECT toUnixTimestamp(claimed_at) AS at, source FROM leaderboard_claims ORDER BY claimed_at DESC, source DESC LIMIT 1')
  return r ? `${r.at}/${r.source}` : ''
}

/** The roster: the wallets of the leaderboard `id` (at most 100 rows, read by key). */
export async function readRoster(ch: ClickHouseClient, id: string): Promise<Roster> {
  if (!id) return { id, claims: new Map() }
  const slash = id.indexOf('/')
  const rows = await queryRows<{ wallet: string; r: number; pnl: number; src: string; at_s: number }>(
    ch,
    `SELECT wallet, any(rank) AS r, any(claimed_pnl_usd_30d) AS pnl, any(source) AS src, any(toUnixTimestamp(claimed_at)) AS at_s
     FROM leaderboard_claims WHERE claimed_at = toDateTime({at:UInt32}, 'UTC') AND source = {source:String} GROUP BY wallet`,
    { at: Number(id.slice(0, slash)), source: id.slice(slash + 1) },
  )
  return { id, claims: new Map(rows.map((r) => [r.wallet, { source: r.src, wallet: r.wallet, rank: Number(r.r), claimedPnlUsd30d: Number(r.pnl), claimedAt: Number(r.at_s) }])) }
}

/** A token's latest swap: WETH and token amounts (its price) and its block. */
export interface LastSwap {
  weth: bigint
  token: bigint
  block: number
}

/** One token of a wallet, from its FIFO state. */
export interface WalletTokenState {
  token: string
  realizedWei: bigint
  sells: number
  winningSells: number
  unmatchedQty: bigint
  /** Sells with quantity not covered by open lots. */
  unmatchedSells: number
  spentWei: bigint
  receivedWei: bigint
  openQty: bigint
  openCostWei: bigint
  openLots: number
}

/** A wallet's token with the token's latest swap (null without one): what a receipt marks. */
export interface TokenPosition extends WalletTokenState {
  lastSwap: LastSwap | null
}

const S = FIFO_STATE

/**
 * Each wallet's FIFO states (one row per token): one keyed read of fifo_state for all the wallets.
 * They move only when a batch folds the wallet's legs; the tokens' prices apart (readLastSwaps).
 */
export async function readWalletStates(ch: ClickHouseClient, chainId: number, wallets: string[]): Promise<Map<string, WalletTokenState[]>> {
  const out = new Map<string, WalletTokenState[]>(wallets.map((w) => [w, []]))
  if (wallets.length === 0) return out
  const rows = await queryRows<{
    wallet: string; token: string; realized: string; sells: string; wins: string; unmatched: string; unmatched_sells: string; spent: string; received: string
    open_qty: string; open_cost: string; lots: string
  }>(
    ch,
    `WITH s AS (
       SELECT wallet, token, state, unmatched_sells FROM fifo_state WHERE chain_id = {chain:UInt32} AND wallet IN {wallets:Array(String)}
       ORDER BY wallet, token, version DESC LIMIT 1 BY wallet, token)
     SELECT wallet, token,
            toString(state.${S.realized}) AS realized, state.${S.sells} AS sells, state.${S.winningSells} AS wins,
            toString(state.${S.unmatchedQty}) AS unmatched, unmatched_sells, toString(state.${S.spent}) AS spent, toString(state.${S.received}) AS received,
            toString(arraySum(arrayMap(l -> l.1, state.${S.lots}))) AS open_qty, toString(arraySum(arrayMap(l -> l.2, state.${S.lots}))) AS open_cost,
            length(state.${S.lots}) AS lots
     FROM s ORDER BY wallet, token`,
    { chain: chainId, wallets },
  )
  for (const r of rows) {
    out.get(r.wallet)?.push({
      token: r.token,
      realizedWei: BigInt(r.realized),
      sells: Number(r.sells),
      winningSells: Number(r.wins),
      unmatchedQty: BigInt(r.unmatched),
      unmatchedSells: Number(r.unmatched_sells),
      spentWei: BigInt(r.spent),
      receivedWei: BigInt(r.received),
      openQty: BigInt(r.open_qty),
      openCostWei: BigInt(r.open_cost),
      openLots: Number(r.lots),
    })
  }
  return out
}

/**
 * The tokens' latest swaps (token_last_swap by token): absent for a token without one, or whose
 * last swap moved no token (no price).
 */
export async function readLastSwaps(ch: ClickHouseClient, chainId: number, tokens: string[]): Promise<Map<string, LastSwap>> {
  const out = new Map<string, LastSwap>()
  if (tokens.length === 0) return out
  const rows = await queryRows<{ token: string; q_weth: string; q_token: string; q_block: string }>(
    ch,
    `SELECT token, toString(q.1) AS q_weth, toString(q.2) AS q_token, q.5 AS q_block FROM (
       SELECT token, argMaxMerge(quote) AS q FROM token_last_swap WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token)`,
    { chain: chainId, tokens },
  )
  for (const r of rows) if (BigInt(r.q_token) > 0n) out.set(r.token, { weth: BigInt(r.q_weth), token: BigInt(r.q_token), block: Number(r.q_block) })
  return out
}

/** Median hold and count of closed lots, overall and per token. */
export type Holds = { all: { median: number | null; lots: number }; byToken: Map<string, { median: number | null; lots: number }> }

/** Median hold (seconds) of each wallet's closed lots, overall and per token, and their counts: one keyed read of their hold counts. */
export async function readHoldsOf(ch: ClickHouseClient, chainId: number, wallets: string[]): Promise<Map<string, Holds>> {
  const out = new Map<string, Holds>(wallets.map((w) => [w, { all: { median: null, lots: 0 }, byToken: new Map() }]))
  if (wallets.length === 0) return out
  const rows = await queryRows<{ wallet: string; token: string; median: number | null; closed: string }>(
    ch,
    `SELECT wallet, token, ${medianHoldSql('hold_seconds', 'lots')} AS median, sum(lots) AS closed
     FROM fifo_hold_counts WHERE chain_id = {chain:UInt32} AND wallet IN {wallets:Array(String)}
     GROUP BY GROUPING SETS ((wallet, token), (wallet)) ORDER BY wallet, token`,
    { chain: chainId, wallets },
  )
  for (const r of rows) {
    const holds = out.get(r.wallet)
    if (!holds) continue
    const v = { median: r.median === null ? null : Number(r.median), lots: Number(r.closed) }
    // A wallet's total row has the default token.
    if (r.token === '') holds.all = v
    else holds.byToken.set(r.token, v)
  }
  return out
}

/**
 * Realized PnL (wei) and count of each wallet's sells with time in its window (from, to] (unix
 * seconds): one key range of each wallet's sells, in one statement.
 */
export async function readSellWindows(
  ch: ClickHouseClient,
  chainId: number,
  windows: Array<{ wallet: string; from: number; to: number }>,
): Promise<Map<string, { wei: bigint; sells: number }>> {
  const out = new Map(windows.map((w) => [w.wallet, { wei: 0n, sells: 0 }]))
  if (windows.length === 0) return out
  const rows = await queryRows<{ wallet: string; wei: string; n: string }>(
    ch,
    `SELECT wallet, toString(sum(realized)) AS wei, count() AS n FROM fifo_sells FINAL
     WHERE chain_id = {chain:UInt32} AND wallet IN {wallets:Array(String)}
       AND block_time > toDateTime(transform(wallet, {wallets:Array(String)}, {froms:Array(UInt32)}, toUInt32(0)), 'UTC')
       AND block_time <= toDateTime(transform(wallet, {wallets:Array(String)}, {tos:Array(UInt32)}, toUInt32(0)), 'UTC')
     GROUP BY wallet`,
    { chain: chainId, wallets: windows.map((w) => w.wallet), froms: windows.map((w) => w.from), tos: windows.map((w) => w.to) },
  )
  for (const r of rows) out.set(r.wallet, { wei: BigInt(r.wei), sells: Number(r.n) })
  return out
}

/** ETH/USD low and high over candles with minute in (from, to], or null without candles. */
export async function readEthUsdRange(ch: ClickHouseClient, from: number, to: number): Promise<{ low: number; high: number; candles: number } | null> {
  const [r] = await queryRows<{ low: string; high: string; n: string }>(
    ch,
    `SELECT toString(min(low)) AS low, toString(max(high)) AS high, count() AS n FROM price_candles
     WHERE pair = 'ETH/USD' AND minute > toDateTime({from:UInt32}, 'UTC') AND minute <= toDateTime({to:UInt32}, 'UTC')`,
    { from, to },
  )
  return r && Number(r.n) > 0 ? { low: Number(r.low), high: Number(r.high), candles: Number(r.n) } : null
}

/** WETH as a number (for display; the exact figure is the wei string beside it). */
export const weth = (wei: bigint): number => Number(formatEther(wei))

/** floor(a × b / c) with c > 0: a position's value at a price given as a ratio. */
export const mulDiv = (a: bigint, b: bigint, c: bigint): bigint => (a * b) / c

/**
 * The ETH/USD price at which the claim equals the measured result: claimed USD ÷ measured WETH,
 * when both have the same sign and the measure is not zero; null otherwise (no price can).
 */
export function reconcilingEthUsd(claimedUsd: number, measuredWei: bigint): number | null {
  if (measuredWei === 0n) return null
  const p = claimedUsd / weth(measuredWei)
  return Number.isFinite(p) && p > 0 ? Math.round(p * 100) / 100 : null
}
