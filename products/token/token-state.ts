import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { INSIDER_PREP_MIN_RECIPIENTS } from './deployer-score.ts'
import { deadReason, ratioDecimal, type DeadReason } from './token-status.ts'

export interface PriceQuote {
  pool: string
  /** WETH per whole token (decimals applied; 18 assumed when unknown), decimal string. */
  priceWeth: string
  fdvWethWei: bigint
  ethUsd: number | null
  fdvUsd: number | null
  observedAt: string
  observedBlock: number
}

/** A token as the products show it: one row of `token_state`, with dead decided at a chain time. */
export interface TokenRecord {
  token: string
  deployer: string | null
  name: string
  symbol: string
  decimals: number | null
  createdBlock: number | null
  createdAt: string | null
  launch: { pool: string; protocol: string; block: number; launchedAt: string; visibleUs: number } | null
  swaps: number
  wethVolumeWei: bigint
  traders: number
  firstSwapBlock: number | null
  lastSwapBlock: number | null
  lastSwapAt: string | null
  realBlock: number | null
  realAt: string | null
  quote: PriceQuote | null
  supplyWei: bigint
  liquidityAdded: bigint
  liquidityRemoved: bigint
  insiderPrep: boolean
  /** Unix seconds of the last swap, else the launch, else the creation. */
  lastActivity: number | null
  dead: DeadReason | null
}

/** A `token_state` row as JSON (64-bit and wider integers as strings). */
export interface TokenStateRow {
  token: string
  present: number
  deployer: string
  name: string
  symbol: string
  decimals: number | null
  created: number
  created_block: string
  created_at: string
  launched: number
  launch_pool: string
  launch_protocol: string
  launch_block: string
  launched_at: string
  visible_us: string
  swaps: string
  weth_volume: string
  traders: string
  first_swap_block: string
  last_swap_block: string
  last_swap_time: string
  is_real: number
  real_block: string
  real_at: string
  quoted: number
  quote: [string, string, string, string, string]
  eth_usd: string | null
  minted: string
  burned: string
  liquidity_added: string
  liquidity_removed: string
  prelaunch_recipients: string
  last_activity: number
}

/** The columns a TokenStateRow holds, for SELECT lists. */
export const TOKEN_STATE_COLUMNS =
  'token, present, deployer, name, symbol, decimals, created, created_block, created_at, launched, launch_pool, launch_protocol, ' +
  'launch_block, launched_at, visible_us, swaps, weth_volume, traders, first_swap_block, last_swap_block, last_swap_time, is_real, ' +
  'real_block, real_at, quoted, quote, eth_usd, minted, burned, liquidity_added, liquidity_removed, prelaunch_recipients, last_activity'

function quoteOf(r: TokenStateRow, supplyWei: bigint): PriceQuote | null {
  if (!r.quoted) return null
  const [weth, tokenAmount, pool, at, block] = r.quote
  const w = BigInt(weth)
  const t = BigInt(tokenAmount)
  const decimals = BigInt(r.decimals ?? 18)
  const fdvWethWei = t > 0n ? (supplyWei * w) / t : 0n
  const ethUsd = r.eth_usd !== null && r.eth_usd !== '' ? Number(r.eth_usd) : null
  return {
    pool,
    priceWeth: ratioDecimal(w * 10n ** decimals, t * 10n ** 18n),
    fdvWethWei,
    ethUsd,
    fdvUsd: ethUsd === null ? null : Math.round(Number(ratioDecimal(fdvWethWei, 10n ** 18n, 6)) * ethUsd * 100) / 100,
    observedAt: at,
    observedBlock: Number(block),
  }
}

/** The newest token_state row of each of `tokens` (LIMIT 1 BY token over the primary key). */
export function latestTokenRows(ch: ClickHouseClient, chainId: number, tokens: string[]): Promise<TokenStateRow[]> {
  return queryRows<TokenStateRow>(
    ch,
    `SELECT ${TOKEN_STATE_COLUMNS} FROM token_state WHERE chain_id = {chain:UInt32} AND token IN {keys:Array(String)} ORDER BY token, version DESC LIMIT 1 BY token`,
    { chain: chainId, keys: tokens },
  )
}

/** The record of a `token_state` row at chain time `chainTime` (unix s); undefined when a reorg removed the token. */
export function tokenRecordOf(r: TokenStateRow, chainTime: number): TokenRecord | undefined {
  if (!r.present) return undefined
  const traded = Number(r.swaps) > 0
  const supplyWei = BigInt(r.minted) - BigInt(r.burned)
  const launch = r.launched
    ? { pool: r.launch_pool, protocol: r.launch_protocol, block: Number(r.launch_block), launchedAt: r.launched_at, visibleUs: Number(r.visible_us) }
    : null
  const lastActivity = r.last_activity > 0 ? r.last_activity : null
  const liquidityAdded = BigInt(r.liquidity_added)
  const liquidityRemoved = BigInt(r.liquidity_removed)
  return {
    token: r.token,
    deployer: r.created ? r.deployer : null,
    name: r.name,
    symbol: r.symbol,
    decimals: r.decimals,
    createdBlock: r.created ? Number(r.created_block) : null,
    createdAt: r.created ? r.created_at : null,
    launch,
    swaps: Number(r.swaps),
    wethVolumeWei: BigInt(r.weth_volume),
    traders: Number(r.traders),
    firstSwapBlock: traded ? Number(r.first_swap_block) : null,
    lastSwapBlock: traded ? Number(r.last_swap_block) : null,
    lastSwapAt: traded ? r.last_swap_time : null,
    realBlock: r.is_real ? Number(r.real_block) : null,
    realAt: r.is_real ? r.real_at : null,
    quote: quoteOf(r, supplyWei),
    supplyWei,
    liquidityAdded,
    liquidityRemoved,
    insiderPrep: insiderPrepOf(r),
    lastActivity,
    dead: launch ? deadOf(r, chainTime) : null,
  }
}

/** Whether a row's launch is an insider-prep launch (supply sent to wallets before the pool). */
export function insiderPrepOf(r: Pick<TokenStateRow, 'prelaunch_recipients'>): boolean {
  return Number(r.prelaunch_recipients) >= INSIDER_PREP_MIN_RECIPIENTS
}

/** Why a row's token is dead at chain time `chainTime` (unix s), if it is. */
export function deadOf(r: Pick<TokenStateRow, 'last_activity' | 'liquidity_added' | 'liquidity_removed'>, chainTime: number): DeadReason | null {
  const lastActivity = r.last_activity > 0 ? r.last_activity : null
  return deadReason({ lastActivity, liquidityAdded: BigInt(r.liquidity_added), liquidityRemoved: BigInt(r.liquidity_removed) }, chainTime)
}
