import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows, tupleParam } from '../../core/clickhouse.ts'

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
 * Every wallet of the {tokens} with a balance at {from} or {to}: bal_now at {to}, delta over
 * ({from}, {to}], is_pool ({pools}: (token, pool) pairs). One row per token and wallet from the
 * summing table (FINAL merges its parts in key order, cheaper than hashing every row again),
 * joined with the few wallets the deltas after {from} touch.
 */
const WINDOW_WALLETS = `
        SELECT token, wallet, b.balance - d.after AS bal_now, d.win AS delta, (token, wallet) IN {pools:Array(Tuple(String, String))} AS is_pool
        FROM (SELECT token, wallet, balance FROM holder_balances FINAL WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)}) AS b
        FULL OUTER JOIN
        (
            SELECT token, wallet, sumIf(delta, block_number > {to:UInt64}) AS after, sumIf(delta, block_number <= {to:UInt64}) AS win
            FROM holder_deltas WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} AND block_number > {from:UInt64}
            GROUP BY token, wallet
        ) AS d USING (token, wallet)
        WHERE bal_now != 0 OR bal_now - delta != 0`

interface WindowRow {
  token: string
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

/** The window of a token without a balance at either end (no row of its own). */
const EMPTY_WINDOW_ROW: WindowRow = {
  token: '',
  holders: '0', supply: '0', frozen: '0', added: '0', trimmed: '0', exited: '0', total: '0', top: [], diff: [], pool_rows: [],
  pools_then: '0', grew_n: '0', grew_amount: '0', exited_then: '0', new_n: '0', new_now: '0', top_then: [], first_change: '0',
}

/**
 * Every wallet's balance of each token at `fromBlock` and at `toBlock` (fromBlock <= toBlock), in
 * one pass for all the tokens: their current balances, minus the deltas above `toBlock`, give
 * the end; the deltas in (fromBlock, toBlock] give the change. Reads the tokens' key ranges of
 * holder_balances and of holder_deltas after `fromBlock`; nothing else. `tokens` maps each token
 * to its pools.
 */
export async function holderWindows(
  ch: ClickHouseClient,
  chainId: number,
  tokens: Map<string, string[]>,
  range: { fromBlock: number; toBlock: number },
  opts: { top?: number; diffLimit?: number; topThen?: number } = {},
): Promise<Map<string, HolderWindow>> {
  const out = new Map<string, HolderWindow>()
  if (tokens.size === 0) return out
  const top = opts.top ?? 50
  const diffLimit = opts.diffLimit ?? 1000
  const topThen = opts.topThen ?? 10
  const pools = [...tokens].flatMap(([token, ps]) => ps.map((p) => [token, p] as [string, string]))
  const params = { chain: chainId, tokens: [...tokens.keys()], from: range.fromBlock, to: range.toBlock, pools: tupleParam(pools) }
  const rows = await queryRows<WindowRow>(
    ch,
    `SELECT * FROM
     (
       SELECT
        token,
        countIf(bal_now > 0 AND NOT is_pool) AS holders,
        toString(sum(bal_now)) AS supply,
        countIf(NOT is_pool AND delta = 0) AS frozen,
        countIf(NOT is_pool AND delta > 0) AS added,
        countIf(NOT is_pool AND delta < 0 AND bal_now > 0) AS trimmed,
        countIf(NOT is_pool AND delta < 0 AND bal_now <= 0) AS exited,
        countIf(NOT is_pool) AS total,
        arrayMap(x -> (x.2, toString(-x.1)), groupArraySortedIf(${top})((-bal_now, wallet), NOT is_pool AND bal_now > 0)) AS top,
        -- The wallets that changed, by |delta| (the unchanged ones follow, read apart when needed).
        arrayMap(x -> (x.3, toString(-x.2 - x.4), toString(-x.2), toString(x.4)),
                 groupArraySortedIf(${diffLimit})((-toInt256(abs(delta)), -bal_now, wallet, delta), NOT is_pool AND delta != 0)) AS diff,
        groupArrayIf((wallet, toString(bal_now)), is_pool) AS pool_rows,
        toString(sumIf(bal_now - delta, is_pool)) AS pools_then,
        countIf(NOT is_pool AND delta > 0) AS grew_n,
        toString(sumIf(delta, NOT is_pool AND delta > 0)) AS grew_amount,
        toString(sumIf(bal_now - delta, NOT is_pool AND delta < 0 AND bal_now <= 0)) AS exited_then,
        countIf(NOT is_pool AND bal_now - delta = 0 AND bal_now > 0) AS new_n,
        toString(sumIf(bal_now, NOT is_pool AND bal_now - delta = 0 AND bal_now > 0)) AS new_now,
        arrayMap(x -> (x.2, toString(-x.1)), groupArraySortedIf(${topThen})((-(bal_now - delta), wallet), NOT is_pool AND bal_now - delta > 0)) AS top_then
       FROM (${WINDOW_WALLETS})
       GROUP BY token
     ) AS w
     FULL OUTER JOIN
     (
       -- By the table's key (token, then block): each token's first delta in the window.
       SELECT token, toString(min(block_number)) AS first_change FROM holder_deltas
       WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} AND block_number > {from:UInt64} AND block_number <= {to:UInt64}
       GROUP BY token
     ) AS f USING (token)
     SETTINGS join_use_nulls = 0`,
    params,
  )
  const found = new Map(rows.map((r) => [r.token, r]))
  // Fewer changed wallets than the limit: the unchanged ones follow, largest balance first.
  const short = [...tokens.keys()].filter((t) => {
    const r = found.get(t)
    return r?.diff && r.diff.length < diffLimit && Number(r.frozen) > 0
  })
  const unchanged = new Map<string, HolderChange[]>()
  if (short.length) {
    const rest = await queryRows<{ token: string; wallet: string; b: string }>(
      ch,
      `SELECT token, wallet, toString(bal_now) AS b FROM (${WINDOW_WALLETS}) WHERE NOT is_pool AND delta = 0
       ORDER BY token, bal_now DESC, wallet LIMIT {n:UInt32} BY token SETTINGS join_use_nulls = 0`,
      { ...params, tokens: short, n: diffLimit },
    )
    for (const x of rest) {
      let list = unchanged.get(x.token)
      if (!list) unchanged.set(x.token, (list = []))
      list.push({ wallet: x.wallet, then: BigInt(x.b), now: BigInt(x.b), delta: 0n })
    }
  }
  for (const [token, tokenPools] of tokens) {
    // A token with deltas in the window but no wallet holding at either end comes from the join's
    // right side alone: its other columns are defaults ('' for a sum, which BigInt reads as 0).
    const r = found.get(token) ?? EMPTY_WINDOW_ROW
    const wallets = r.diff.map(([wallet, then, now, delta]) => ({ wallet, then: BigInt(then), now: BigInt(now), delta: BigInt(delta) }))
    wallets.push(...(unchanged.get(token) ?? []).slice(0, diffLimit - wallets.length))
    const poolBalance = new Map(r.pool_rows.map(([w, b]) => [w, BigInt(b)]))
    out.set(token, {
      supply: BigInt(r.supply),
      holders: Number(r.holders),
      top: r.top.map(([wallet, b]) => ({ wallet, balance: BigInt(b) })),
      summary: { frozen: Number(r.frozen), added: Number(r.added), trimmed: Number(r.trimmed), exited: Number(r.exited) },
      wallets,
      total: Number(r.total),
      pools: tokenPools.map((pool) => ({ pool, balance: poolBalance.get(pool) ?? 0n })),
      poolsThen: BigInt(r.pools_then),
      grew: { count: Number(r.grew_n), amount: BigInt(r.grew_amount) },
      exited: { count: Number(r.exited), then: BigInt(r.exited_then) },
      newHolders: { count: Number(r.new_n), now: BigInt(r.new_now) },
      topThen: r.top_then.map(([wallet, b]) => ({ wallet, balance: BigInt(b) })),
      firstChange: Number(r.first_change) > 0 ? Number(r.first_change) : null,
    })
  }
  return out
}

/** holderWindows for one token. */
export async function holderWindow(
  ch: ClickHouseClient,
  chainId: number,
  token: string,
  range: { fromBlock: number; toBlock: number },
  opts: { pools: string[]; top?: number; diffLimit?: number; topThen?: number },
): Promise<HolderWindow> {
  return (await holderWindows(ch, chainId, new Map([[token, opts.pools]]), range, opts)).get(token)!
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

/** Each token's transfers in blocks [0, its before block), in chain order, at most `limit` per token (transfers_by_token, by key). */
export async function transfersBeforeOf(ch: ClickHouseClient, chainId: number, before: Map<string, number>, limit = 20_000): Promise<Map<string, TokenTransfer[]>> {
  const out = new Map<string, TokenTransfer[]>([...before.keys()].map((t) => [t, []]))
  if (before.size === 0) return out
  const rows = await queryRows<{ token: string; block_number: string; log_index: number; from_address: string; to_address: string; value: string }>(
    ch,
    `SELECT token, block_number, log_index, from_address, to_address, toString(value) AS value
     FROM transfers_by_token FINAL
     WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)}
       AND block_number < transform(token, {tokens:Array(String)}, {before:Array(UInt64)}, toUInt64(0))
     ORDER BY token, block_number, log_index LIMIT {limit:UInt32} BY token`,
    { chain: chainId, tokens: [...before.keys()], before: [...before.values()], limit },
  )
  for (const r of rows) out.get(r.token)!.push({ block: Number(r.block_number), logIndex: r.log_index, from: r.from_address, to: r.to_address, value: BigInt(r.value) })
  return out
}

/** The token's transfers in blocks [0, beforeBlock), in chain order. */
export async function transfersBefore(ch: ClickHouseClient, chainId: number, token: string, beforeBlock: number, limit = 20_000): Promise<TokenTransfer[]> {
  return (await transfersBeforeOf(ch, chainId, new Map([[token, beforeBlock]]), limit)).get(token)!
}

/**
 * Counterparties of each token's wallets in that token (token_wallet_links, by key), first seen
 * at or before `throughBlock`, leaving out the token's `exclude` (its pools): the edges the entity
 * rule follows. The wallets go to the engine as one flat list (the links of a wallet asked for
 * another token of the list are read too, and dropped here): as (token, wallet) pairs, 14,000 of
 * them took the engine 60-65 s on the default world against 0.5 s flat (a constant set of that
 * many tuples is that slow in its analyzer; 4,000 took 0.2 s), and a structure refresh asks for
 * up to STRUCTURE_REFRESH_BATCH_TOKENS tokens' thousand listed wallets at once.
 */
export async function walletLinksOf(
  ch: ClickHouseClient,
  chainId: number,
  asks: Map<string, { wallets: string[]; exclude: string[] }>,
  throughBlock: number,
): Promise<Array<{ token: string; wallet: string; peer: string }>> {
  const tokens = [...asks.keys()].filter((t) => asks.get(t)!.wallets.length > 0)
  if (tokens.length === 0) return []
  const asked = new Map(tokens.map((t) => [t, new Set(asks.get(t)!.wallets)]))
  const exclude = tokens.flatMap((t) => asks.get(t)!.exclude.map((w) => [t, w] as [string, string]))
  const rows = await queryRows<{ token: string; wallet: string; peer: string }>(
    ch,
    `SELECT token, wallet, peer FROM token_wallet_links
     WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)}
       AND wallet IN {wallets:Array(String)} AND (token, peer) NOT IN {exclude:Array(Tuple(String, String))}
     GROUP BY token, wallet, peer HAVING min(first_block) <= {to:UInt64}`,
    { chain: chainId, tokens, wallets: [...new Set(tokens.flatMap((t) => asks.get(t)!.wallets))], exclude: tupleParam(exclude), to: throughBlock },
  )
  return rows.filter((r) => asked.get(r.token)?.has(r.wallet))
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

/** What a structure answer needs to know about a token. */
export interface StructureInputs {
  deployer: string | null
  decimals: number | null
  createdBlock: number | null
  firstSwapBlock: number | null
  /** The token's pools created at or before the window end, sorted. */
  pools: string[]
}

/**
 * The window end's timestamp (null: that block is not ingested) and each token's creation
 * (contract_creations), first swap (token_activity) and pools (token_pools), each by key, in one
 * query: every chDB query costs a few milliseconds of planning, so the small reads travel together.
 */
export async function structureInputsOf(
  ch: ClickHouseClient,
  chainId: number,
  tokens: string[],
  toBlock: number,
): Promise<{ to: BlockRef | null; tokens: Map<string, StructureInputs> }> {
  const [r] = await queryRows<{ to_ts: string[]; creation: Array<[string, string, number | null, string]>; first_swaps: Array<[string, string]>; pools: Array<[string, string]> }>(
    ch,
    `SELECT
        (SELECT groupArray(toUnixTimestamp(timestamp)) FROM chain_blocks WHERE chain_id = {chain:UInt32} AND number = {to:UInt64}) AS to_ts,
        (SELECT groupArray((address, deployer, decimals, block_number)) FROM contract_creations WHERE chain_id = {chain:UInt32} AND address IN {tokens:Array(String)}) AS creation,
        (SELECT groupArray((token, first_swap_block)) FROM token_activity WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)}) AS first_swaps,
        (SELECT groupUniqArray((token, pool)) FROM token_pools WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} AND block_number <= {to:UInt64}) AS pools`,
    { chain: chainId, tokens, to: toBlock },
  )
  const out = new Map<string, StructureInputs>(tokens.map((t) => [t, { deployer: null, decimals: null, createdBlock: null, firstSwapBlock: null, pools: [] }]))
  for (const [token, deployer, decimals, block] of r!.creation) {
    const x = out.get(token)!
    if (x.createdBlock === null) Object.assign(x, { deployer, decimals, createdBlock: Number(block) })
  }
  for (const [token, block] of r!.first_swaps) {
    const x = out.get(token)!
    x.firstSwapBlock = Math.min(x.firstSwapBlock ?? Number(block), Number(block))
  }
  for (const [token, pool] of r!.pools) out.get(token)!.pools.push(pool)
  for (const x of out.values()) x.pools.sort()
  return { to: r!.to_ts.length ? { number: toBlock, timestamp: Number(r!.to_ts[0]) } : null, tokens: out }
}

/**
 * Balances of some wallets of each token at two blocks (from <= to), in one read for all the
 * tokens: their current rows by key, minus their deltas after each. `wallets` maps a token to
 * its wallets; every one asked is in the answer (0 at both ends when it has no balance).
 */
export async function balancesBetweenOf(
  ch: ClickHouseClient,
  chainId: number,
  wallets: Map<string, string[]>,
  range: { fromBlock: number; toBlock: number },
): Promise<Map<string, Map<string, { then: bigint; now: bigint }>>> {
  const out = new Map([...wallets].map(([t, ws]) => [t, new Map(ws.map((w) => [w, { then: 0n, now: 0n }]))]))
  const pairs = [...wallets].flatMap(([t, ws]) => ws.map((w) => [t, w] as [string, string]))
  if (pairs.length === 0) return out
  const rows = await queryRows<{ token: string; wallet: string; now: string; win: string }>(
    ch,
    `SELECT token, wallet, toString(sum(now_part)) AS now, toString(sum(win_part)) AS win FROM
     (
        SELECT token, wallet, balance AS now_part, toInt256(0) AS win_part FROM holder_balances
        WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} AND (token, wallet) IN {pairs:Array(Tuple(String, String))}
        UNION ALL
        SELECT token, wallet, if(block_number > {to:UInt64}, -delta, toInt256(0)), if(block_number > {to:UInt64}, toInt256(0), delta) FROM holder_deltas
        WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} AND block_number > {from:UInt64} AND (token, wallet) IN {pairs:Array(Tuple(String, String))}
     )
     GROUP BY token, wallet`,
    { chain: chainId, tokens: [...new Set(pairs.map((p) => p[0]))], pairs: tupleParam(pairs), from: range.fromBlock, to: range.toBlock },
  )
  for (const r of rows) out.get(r.token)!.set(r.wallet, { then: BigInt(r.now) - BigInt(r.win), now: BigInt(r.now) })
  return out
}
