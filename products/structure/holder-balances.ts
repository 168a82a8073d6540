import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

/**
 * Token holders and balances as of any block, read by key (migration 018):
 * holder_balances (chain_id, token, wallet) holds the balance through the last ingested block,
 * holder_deltas (chain_id, token, block_number, wallet) the net change per block. The balance
 * at block B is the current balance minus the deltas of the blocks above B, so a token's
 * holders at B are one keyed read of its current balances plus one range read of its deltas
 * after B. The zero address is never kept; pools are kept and separated by the caller's list.
 */

export const DAY_SECONDS = 86_400

export interface BlockRef {
  number: number
  /** Unix seconds. */
  timestamp: number
}

export interface TokenPool {
  pool: string
  protocol: string
}

/** A wallet's balances at the window's two ends (wei, exact). */
export interface HolderChange {
  wallet: string
  then: bigint
  now: bigint
  /** now - then. */
  delta: bigint
}

export interface HolderWindow {
  /** Σ balances at the window end of every wallet but the zero address, pools included. */
  supply: bigint
  /** Wallets (not pools) with a balance above 0 at the window end. */
  holders: number
  /** The largest holders at the window end, largest first (ties by address), at most `top`. */
  top: Array<{ wallet: string; balance: bigint }>
  /** Class counts over the wallets (not pools) with a balance at either end. */
  summary: { frozen: number; added: number; trimmed: number; exited: number }
  /** Those wallets ordered by |delta| (then balance now, then address), at most `diffLimit`. */
  wallets: HolderChange[]
  /** How many wallets the summary classifies (wallets.length when not truncated). */
  total: number
  /** The pools' balances at the window end, one per pool given (0 when none). */
  pools: Array<{ pool: string; balance: bigint }>
  /** Σ of the pools' balances at the window start. */
  poolsThen: bigint
  /** Wallets (not pools) that grew, and Σ of their growth. */
  grew: { count: number; amount: bigint }
  /** Wallets (not pools) that went to 0, and Σ of their balances at the start. */
  exited: { count: number; then: bigint }
  /** Wallets (not pools) at 0 at the start and above 0 at the end, and Σ of their balances at the end. */
  newHolders: { count: number; now: bigint }
  /** The largest holders at the window start, largest first, at most `topThen` (10). */
  topThen: Array<{ wallet: string; balance: bigint }>
  /**
   * The window's first block with a balance change (null: none): the figures hold while the
   * window's start moves over blocks before it, and change once the start reaches it.
   */
  firstChange: number | null
}

/** One ingested block by number, or null. */
export async function blockAt(ch: ClickHouseClient, chainId: number, number: number): Promise<BlockRef | null> {
  const rows = await queryRows<{ number: string; ts: string }>(
    ch,
    `SELECT number, toUnixTimestamp(timestamp) AS ts FROM chain_blocks WHERE chain_id = {chain:UInt32} AND number = {n:UInt64} LIMIT 1`,
    { chain: chainId, n: number },
  )
  return rows[0] ? { number: Number(rows[0].number), timestamp: Number(rows[0].ts) } : null
}

/**
 * The latest ingested block whose timestamp is at most `atOrBefore` (unix seconds), read in
 * reverse key order from block_times: one keyed read, not a scan of chain_blocks.
 */
export async function latestBlockAtOrBefore(ch: ClickHouseClient, chainId: number, atOrBefore: number): Promise<BlockRef | null> {
  if (atOrBefore < 0) return null
  const rows = await queryRows<{ number: string; ts: string }>(
    ch,
    `SELECT number, toUnixTimestamp(timestamp) AS ts FROM block_times
     WHERE chain_id = {chain:UInt32} AND timestamp <= toDateTime({t:UInt32}, 'UTC')
     ORDER BY chain_id DESC, timestamp DESC, number DESC LIMIT 1`,
    { chain: chainId, t: atOrBefore },
  )
  return rows[0] ? { number: Number(rows[0].number), timestamp: Number(rows[0].ts) } : null
}

/** The first ingested block of the chain (the start of its history), or null. */
export async function firstIngestedBlock(ch: ClickHouseClient, chainId: number): Promise<BlockRef | null> {
  const rows = await queryRows<{ number: string; ts: string }>(
    ch,
    `SELECT number, toUnixTimestamp(timestamp) AS ts FROM block_times WHERE chain_id = {chain:UInt32}
     ORDER BY chain_id, timestamp, number LIMIT 1`,
    { chain: chainId },
  )
  return rows[0] ? { number: Number(rows[0].number), timestamp: Number(rows[0].ts) } : null
}

/** The token's pools created at or before `throughBlock` (token_pools, by key). */
export async function tokenPools(ch: ClickHouseClient, chainId: number, token: string, throughBlock: number): Promise<TokenPool[]> {
  return queryRows<TokenPool>(
    ch,
    `SELECT pool, any(protocol) AS protocol FROM token_pools
     WHERE chain_id = {chain:UInt32} AND token = {token:String} AND block_number <= {to:UInt64}
     GROUP BY pool ORDER BY pool`,
    { chain: chainId, token, to: throughBlock },
  )
}

/**
 * Every wallet of {token} with a balance at {from} or {to}: bal_now at {to}, delta over
 * ({from}, {to}], is_pool. One row per wallet from the summing table (FINAL merges its parts in
 * key order, cheaper than hashing every row again), joined with the few wallets the deltas
 * after {from} touch.
 */
const WINDOW_WALLETS = `
        SELECT wallet, b.balance - d.after AS bal_now, d.win AS delta, wallet IN {pools:Array(String)} AS is_pool
        FROM (SELECT wallet, balance FROM holder_balances FINAL WHERE chain_id = {chain:UInt32} AND token = {token:String}) AS b
        FULL OUTER JOIN
        (
            SELECT wallet, sumIf(delta, block_number > {to:UInt64}) AS after, sumIf(delta, block_number <= {to:UInt64}) AS win
            FROM holder_deltas WHERE chain_id = {chain:UInt32} AND token = {token:String} AND block_number > {from:UInt64}
            GROUP BY wallet
        ) AS d USING (wallet)
        WHERE bal_now != 0 OR bal_now - delta != 0`

interface WindowRow {
  holders: string
  supply: string
  frozen: string
  added: string
  trimmed: string
  exited: string
  total: string
  top: Array<[string, string]>
  diff: Array<[string, string, string, string]>
  pool_rows: Array<[string, string]>
  pools_then: string
  grew_n: string
  grew_amount: string
  exited_then: string
  new_n: string
  new_now: string
  top_then: Array<[string, string]>
  first_change: string
}

/**
 * Every wallet's balance of `token` at `fromBlock` and at `toBlock` (fromBlock <= toBlock), in
 * one pass: the token's current balances, minus the deltas above `toBlock`, give the end; the
 * deltas in (fromBlock, toBlock] give the change. Reads the token's key range of
 * holder_balances and of holder_deltas after `fromBlock`; nothing else.
 */
export async function holderWindow(
  ch: ClickHouseClient,
  chainId: number,
  token: string,
  range: { fromBlock: number; toBlock: number },
  opts: { pools: string[]; top?: number; diffLimit?: number; topThen?: number },
): Promise<HolderWindow> {
  const top = opts.top ?? 50
  const diffLimit = opts.diffLimit ?? 1000
  const topThen = opts.topThen ?? 10
  const rows = await queryRows<WindowRow>(
    ch,
    `SELECT
        countIf(bal_now > 0 AND NOT is_pool) AS holders,
        sum(bal_now) AS supply,
        countIf(NOT is_pool AND delta = 0) AS frozen,
        countIf(NOT is_pool AND delta > 0) AS added,
        countIf(NOT is_pool AND delta < 0 AND bal_now > 0) AS trimmed,
        countIf(NOT is_pool AND delta < 0 AND bal_now <= 0) AS exited,
        countIf(NOT is_pool) AS total,
        groupArraySortedIf(${top})((-bal_now, wallet), NOT is_pool AND bal_now > 0) AS top_sorted,
        arrayMap(x -> (x.2, toString(-x.1)), top_sorted) AS top,
        -- The wallets that changed, by |delta| (the unchanged ones follow, read apart when needed).
        groupArraySortedIf(${diffLimit})((-toInt256(abs(delta)), -bal_now, wallet, delta), NOT is_pool AND delta != 0) AS moved_sorted,
        arrayMap(x -> (x.3, toString(-x.2 - x.4), toString(-x.2), toString(x.4)), moved_sorted) AS diff,
        groupArrayIf((wallet, toString(bal_now)), is_pool) AS pool_rows,
        toString(sumIf(bal_now - delta, is_pool)) AS pools_then,
        countIf(NOT is_pool AND delta > 0) AS grew_n,
        toString(sumIf(delta, NOT is_pool AND delta > 0)) AS grew_amount,
        toString(sumIf(bal_now - delta, NOT is_pool AND delta < 0 AND bal_now <= 0)) AS exited_then,
        countIf(NOT is_pool AND bal_now - delta = 0 AND bal_now > 0) AS new_n,
        toString(sumIf(bal_now, NOT is_pool AND bal_now - delta = 0 AND bal_now > 0)) AS new_now,
        groupArraySortedIf(${topThen})((-(bal_now - delta), wallet), NOT is_pool AND bal_now - delta > 0) AS top_then_sorted,
        arrayMap(x -> (x.2, toString(-x.1)), top_then_sorted) AS top_then,
        -- By the table's key (token, then block): a read of the window's first granule.
        (SELECT min(block_number) FROM holder_deltas
         WHERE chain_id = {chain:UInt32} AND token = {token:String} AND block_number > {from:UInt64} AND block_number <= {to:UInt64}) AS first_change
     FROM
     (
${WINDOW_WALLETS}
     )
     SETTINGS join_use_nulls = 0`,
    { chain: chainId, token, from: range.fromBlock, to: range.toBlock, pools: opts.pools },
  )
  const r = rows[0]!
  const wallets = r.diff.map(([wallet, then, now, delta]) => ({ wallet, then: BigInt(then), now: BigInt(now), delta: BigInt(delta) }))
  const frozen = Number(r.frozen)
  if (wallets.length < diffLimit && frozen > 0) {
    // Fewer changed wallets than the limit: the unchanged ones follow, largest balance first.
    const rest = await queryRows<{ wallet: string; b: string }>(
      ch,
      `SELECT wallet, toString(bal_now) AS b FROM (${WINDOW_WALLETS}) WHERE NOT is_pool AND delta = 0
       ORDER BY bal_now DESC, wallet LIMIT {n:UInt32} SETTINGS join_use_nulls = 0`,
      { chain: chainId, token, from: range.fromBlock, to: range.toBlock, pools: opts.pools, n: diffLimit - wallets.length },
    )
    for (const x of rest) wallets.push({ wallet: x.wallet, then: BigInt(x.b), now: BigInt(x.b), delta: 0n })
  }
  const poolBalance = new Map(r.pool_rows.map(([w, b]) => [w, BigInt(b)]))
  return {
    supply: BigInt(r.supply),
    holders: Number(r.holders),
    top: r.top.map(([wallet, b]) => ({ wallet, balance: BigInt(b) })),
    summary: { frozen: Number(r.frozen), added: Number(r.added), trimmed: Number(r.trimmed), exited: Number(r.exited) },
    wallets,
    total: Number(r.total),
    pools: opts.pools.map((pool) => ({ pool, balance: poolBalance.get(pool) ?? 0n })),
    poolsThen: BigInt(r.pools_then),
    grew: { count: Number(r.grew_n), amount: BigInt(r.grew_amount) },
    exited: { count: Number(r.exited), then: BigInt(r.exited_then) },
    newHolders: { count: Number(r.new_n), now: BigInt(r.new_now) },
    topThen: r.top_then.map(([wallet, b]) => ({ wallet, balance: BigInt(b) })),
    firstChange: Number(r.first_change) > 0 ? Number(r.first_change) : null,
  }
}

/**
 * Balances of some wallets of `token` at `block` (0 for a wallet without one): their current
 * rows by key, minus their deltas after `block`.
 */
export async function balancesAt(ch: ClickHouseClient, chainId: number, token: string, block: number, wallets: string[]): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>(wallets.map((w) => [w, 0n]))
  if (wallets.length === 0) return out
  const rows = await queryRows<{ wallet: string; b: string }>(
    ch,
    `SELECT wallet, toString(sum(x)) AS b FROM
     (
        SELECT wallet, balance AS x FROM holder_balances
        WHERE chain_id = {chain:UInt32} AND token = {token:String} AND wallet IN {wallets:Array(String)}
        UNION ALL
        SELECT wallet, -delta AS x FROM holder_deltas
        WHERE chain_id = {chain:UInt32} AND token = {token:String} AND block_number > {block:UInt64} AND wallet IN {wallets:Array(String)}
     )
     GROUP BY wallet`,
    { chain: chainId, token, block, wallets },
  )
  for (const r of rows) out.set(r.wallet, BigInt(r.b))
  return out
}

/** A token transfer as the label rules read it. */
export interface TokenTransfer {
  block: number
  logIndex: number
  from: string
  to: string
  value: bigint
}

/** The token's transfers in blocks [0, beforeBlock), in chain order (transfers_by_token, by key). */
export async function transfersBefore(ch: ClickHouseClient, chainId: number, token: string, beforeBlock: number, limit = 20_000): Promise<TokenTransfer[]> {
  const rows = await queryRows<{ block_number: string; log_index: number; from_address: string; to_address: string; value: string }>(
    ch,
    `SELECT block_number, log_index, from_address, to_address, toString(value) AS value
     FROM transfers_by_token FINAL
     WHERE chain_id = {chain:UInt32} AND token = {token:String} AND block_number < {before:UInt64}
     ORDER BY block_number, log_index LIMIT {limit:UInt32}`,
    { chain: chainId, token, before: beforeBlock, limit },
  )
  return rows.map((r) => ({ block: Number(r.block_number), logIndex: r.log_index, from: r.from_address, to: r.to_address, value: BigInt(r.value) }))
}

/**
 * Counterparties of `wallets` in `token` (token_wallet_links, by key), first seen at or before
 * `throughBlock`, leaving out `exclude` (pools): the edges the entity rule follows.
 */
export async function walletLinks(
  ch: ClickHouseClient,
  chainId: number,
  token: string,
  wallets: string[],
  throughBlock: number,
  exclude: string[],
): Promise<Array<{ wallet: string; peer: string }>> {
  if (wallets.length === 0) return []
  return queryRows<{ wallet: string; peer: string }>(
    ch,
    `SELECT wallet, peer FROM token_wallet_links
     WHERE chain_id = {chain:UInt32} AND token = {token:String} AND wallet IN {wallets:Array(String)} AND peer NOT IN {exclude:Array(String)}
     GROUP BY wallet, peer HAVING min(first_block) <= {to:UInt64}`,
    { chain: chainId, token, wallets, exclude, to: throughBlock },
  )
}

/** The token's deployer and decimals (contract_creations), and its first swap block (token_activity), by key. */
export async function tokenFacts(
  ch: ClickHouseClient,
  chainId: number,
  token: string,
): Promise<{ deployer: string | null; decimals: number | null; createdBlock: number | null; firstSwapBlock: number | null }> {
  const [cr, act] = await Promise.all([
    queryRows<{ deployer: string; decimals: number | null; block_number: string }>(
      ch,
      `SELECT deployer, decimals, block_number FROM contract_creations WHERE chain_id = {chain:UInt32} AND address = {token:String} LIMIT 1`,
      { chain: chainId, token },
    ),
    queryRows<{ first: string; n: string }>(
      ch,
      `SELECT min(first_swap_block) AS first, count() AS n FROM token_activity WHERE chain_id = {chain:UInt32} AND token = {token:String}`,
      { chain: chainId, token },
    ),
  ])
  return {
    deployer: cr[0]?.deployer ?? null,
    decimals: cr[0]?.decimals ?? null,
    createdBlock: cr[0] ? Number(cr[0].block_number) : null,
    firstSwapBlock: act[0] && Number(act[0].n) > 0 ? Number(act[0].first) : null,
  }
}

/** What a structure answer needs to know about a token and its window end, read in one round trip. */
export interface StructureInputs {
  /** The window end, or null when that block is not ingested. */
  to: BlockRef | null
  deployer: string | null
  decimals: number | null
  createdBlock: number | null
  firstSwapBlock: number | null
  /** The token's pools created at or before the window end, sorted. */
  pools: string[]
}

/**
 * The window end's timestamp, the token's creation (contract_creations), first swap
 * (token_activity) and pools (token_pools), each by key, in one query: every chDB query costs
 * a few milliseconds of planning, so the small reads travel together.
 */
export async function structureInputs(ch: ClickHouseClient, chainId: number, token: string, toBlock: number): Promise<StructureInputs> {
  const [r] = await queryRows<{ to_ts: string[]; creation: Array<[string, number | null, string]>; first_swaps: string[]; pools: string[] }>(
    ch,
    `SELECT
        (SELECT groupArray(toUnixTimestamp(timestamp)) FROM chain_blocks WHERE chain_id = {chain:UInt32} AND number = {to:UInt64}) AS to_ts,
        (SELECT groupArray((deployer, decimals, block_number)) FROM contract_creations WHERE chain_id = {chain:UInt32} AND address = {token:String}) AS creation,
        (SELECT groupArray(first_swap_block) FROM token_activity WHERE chain_id = {chain:UInt32} AND token = {token:String}) AS first_swaps,
        (SELECT arraySort(groupUniqArray(pool)) FROM token_pools WHERE chain_id = {chain:UInt32} AND token = {token:String} AND block_number <= {to:UInt64}) AS pools`,
    { chain: chainId, token, to: toBlock },
  )
  const c = r!.creation[0]
  const swaps = r!.first_swaps.map(Number)
  return {
    to: r!.to_ts.length ? { number: toBlock, timestamp: Number(r!.to_ts[0]) } : null,
    deployer: c ? c[0] : null,
    decimals: c ? c[1] : null,
    createdBlock: c ? Number(c[2]) : null,
    firstSwapBlock: swaps.length ? Math.min(...swaps) : null,
    pools: r!.pools,
  }
}

/** Balances of some wallets of `token` at two blocks (from <= to), in one read: their current rows by key, minus their deltas after each. */
export async function balancesBetween(
  ch: ClickHouseClient,
  chainId: number,
  token: string,
  range: { fromBlock: number; toBlock: number },
  wallets: string[],
): Promise<Map<string, { then: bigint; now: bigint }>> {
  const out = new Map<string, { then: bigint; now: bigint }>(wallets.map((w) => [w, { then: 0n, now: 0n }]))
  if (wallets.length === 0) return out
  const rows = await queryRows<{ wallet: string; now: string; win: string }>(
    ch,
    `SELECT wallet, toString(sum(now_part)) AS now, toString(sum(win_part)) AS win FROM
     (
        SELECT wallet, balance AS now_part, toInt256(0) AS win_part FROM holder_balances
        WHERE chain_id = {chain:UInt32} AND token = {token:String} AND wallet IN {wallets:Array(String)}
        UNION ALL
        SELECT wallet, if(block_number > {to:UInt64}, -delta, toInt256(0)), if(block_number > {to:UInt64}, toInt256(0), delta) FROM holder_deltas
        WHERE chain_id = {chain:UInt32} AND token = {token:String} AND block_number > {from:UInt64} AND wallet IN {wallets:Array(String)}
     )
     GROUP BY wallet`,
    { chain: chainId, token, from: range.fromBlock, to: range.toBlock, wallets },
  )
  for (const r of rows) out.set(r.wallet, { then: BigInt(r.now) - BigInt(r.win), now: BigInt(r.now) })
  return out
}
