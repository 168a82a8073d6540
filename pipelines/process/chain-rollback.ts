import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { recountChainTotals } from '../../products/token/chain-totals.ts'
import { refoldPairs, type WalletToken } from '../../products/wallet/fifo-refresh.ts'

/**
 * Raw tables of a chain and the column holding each row's block: a reorg deletes every row at
 * or above the fork block (rows carry their block as a sortable checkpoint).
 */
const RAW_TABLES: Array<[table: string, blockColumn: string]> = [
  ['contract_creations', 'block_number'],
  ['pools', 'block_number'],
  ['erc20_transfers', 'block_number'],
  ['swaps', 'block_number'],
  ['pool_reserves', 'block_number'],
  ['liquidity_events', 'block_number'],
  ['launches', 'block_number'],
  // Copies kept by views for other access paths (token order, feed order).
  ['transfers_by_token', 'block_number'],
  ['wallet_legs', 'block_number'],
  ['launch_feed', 'block_number'],
  ['token_pools', 'block_number'],
  ['block_times', 'number'],
  // Scan results measured through an orphaned block (migration 020).
  ['structure_snapshots', 'to_block'],
  ['snapshot_holdings', 'to_block'],
  ['forensics_results', 'measured_through_block'],
  // Launch attribution (5042, sql/migrations/024_arc.sql): every row carries its block.
  ['arc_launches', 'block_number'],
  ['arc_launches_by_block', 'block_number'],
  ['arc_launches_by_via', 'block_number'],
  ['arc_launches_by_deployer', 'block_number'],
  ['arc_launches_by_symbol', 'block_number'],
  ['arc_first_pools', 'block_number'],
  ['arc_token_activity', 'block_number'],
  ['arc_activity_by_block', 'block_number'],
  ['arc_balance_deltas', 'block_number'],
  ['arc_venue_stats', 'block_number'],
  ['arc_deployer_venues', 'block_number'],
  ['launches_by_time', 'block_number'],
  // Verdicts and marks taken at an orphaned block are taken again on the new chain (migration 023).
  ['launch_verdicts', 'taken_block'],
  ['launch_marks', 'marked_block'],
  // Deleted last by rollbackChain: a block row is the mark that a block's rows are in.
  ['chain_blocks', 'number'],
]

/**
 * Raw tables that feed aggregating views, with the key their view targets are grouped by. An
 * aggregate cannot subtract the rows of orphaned blocks, so the affected keys' aggregates are
 * dropped and the keys' surviving raw rows are replayed through the views: the views' own SQL
 * rebuilds them, nothing re-states it here.
 */
const REPLAYED: Array<{ source: string; key: string; targets: string[] }> = [
  { source: 'swaps', key: 'token', targets: ['token_activity', 'token_trader_first', 'token_last_swap', 'token_block_activity', 'token_minute_activity', 'wallet_legs'] },
  // Holder balances, per-block deltas and transfer links (migration 018): no orphaned delta survives.
  // transfers_by_wallet (migration 020): a copy by wallet, rebuilt whole per token so a replay leaves no duplicate.
  { source: 'erc20_transfers', key: 'token', targets: ['token_supply', 'holder_deltas', 'holder_balances', 'token_wallet_links', 'transfers_by_wallet'] },
  { source: 'liquidity_events', key: 'pool', targets: ['pool_liquidity', 'pool_providers', 'pool_liquidity_minute', 'pool_first_mint'] },
]

const scratchTable = (chainId: number, source: string) => `rollback_${chainId}_${source}`
/** The affected keys, kept apart: a key may have no surviving rows at all. */
const scratchKeys = (chainId: number, source: string) => `rollback_${chainId}_${source}_keys`

async function tableExists(ch: ClickHouseClient, name: string): Promise<boolean> {
  const rows = await queryRows<{ n: string }>(ch, 'SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = {t:String}', { t: name })
  return Number(rows[0]!.n) > 0
}

export interface RollbackResult {
  fromBlock: number
  /** Tokens whose swaps were affected (their real status is recomputed). */
  tokens: string[]
  /** Every token the orphaned blocks touched (its serving state is refreshed). */
  touched: string[]
  /** Wallets whose FIFO state was rebuilt (their receipts changed). */
  wallets: string[]
}

/** Copy the rows of `keys` below `fromBlock` aside: what the keys' aggregates are rebuilt from. */
async function setAside(ch: ClickHouseClient, chainId: number, r: (typeof REPLAYED)[number], keys: string[], fromBlock: number): Promise<void> {
  const scratch = scratchTable(chainId, r.source)
  const keyTable = scratchKeys(chainId, r.source)
  for (const t of [scratch, keyTable]) await ch.command({ query: `DROP TABLE IF EXISTS ${t}` })
  await ch.command({ query: `CREATE TABLE ${keyTable} (k String) ENGINE = MergeTree ORDER BY k` })
  await ch.insert({ table: keyTable, values: keys.map((k) => ({ k })), format: 'JSONEachRow' })
  await ch.command({ query: `CREATE TABLE ${scratch} AS ${r.source} ENGINE = MergeTree ORDER BY tuple()` })
  await ch.command({
    query: `INSERT INTO ${scratch} SELECT * FROM ${r.source} WHERE chain_id = {chain:UInt32} AND ${r.key} IN {keys:Array(String)} AND block_number < {from:UInt64}`,
    query_params: { chain: chainId, keys, from: fromBlock },
  })
}

/**
 * Rebuild the aggregates of the keys in a scratch table: drop their aggregates and raw rows,
 * then insert the set-aside rows again so the views see them anew. Idempotent: if the process
 * dies midway, the scratch table is still there and the next start finishes the job.
 */
async function replayScratch(ch: ClickHouseClient, chainId: number, r: (typeof REPLAYED)[number]): Promise<string[]> {
  const scratch = scratchTable(chainId, r.source)
  const keyTable = scratchKeys(chainId, r.source)
  if (!(await tableExists(ch, keyTable))) return []
  if (!(await tableExists(ch, scratch))) {
    // The replay had finished; only the key list was left behind.
    await ch.command({ query: `DROP TABLE ${keyTable}` })
    return []
  }
  const keys = (await queryRows<{ k: string }>(ch, `SELECT DISTINCT k FROM ${keyTable}`)).map((x) => x.k)
  const kp = { chain: chainId, keys }
  for (const target of [...r.targets, r.source]) {
    await ch.command({ query: `DELETE FROM ${target} WHERE chain_id = {chain:UInt32} AND ${r.key} IN {keys:Array(String)}`, query_params: kp })
  }
  await ch.command({ query: `INSERT INTO ${r.source} SELECT * FROM ${scratch}`, clickhouse_settings: { insert_deduplicate: 0 } })
  await ch.command({ query: `DROP TABLE ${scratch}` })
  await ch.command({ query: `DROP TABLE ${keyTable}` })
  return keys
}

/**
 * The recorded verdicts and marks (migration 023) and what views keep from them by launch day
 * (migration 026: outcome_rollup, basket_closes). Their aggregates are rebuilt per launch day a
 * rollback touched, from the day's surviving rows replayed through the views: work proportional
 * to the reorg's days, not to every launch recorded.
 */
const OUTCOME_SOURCES: Array<[table: string, blockColumn: string]> = [['launch_verdicts', 'taken_block'], ['launch_marks', 'marked_block']]
const OUTCOMES = 'outcomes'

/** `launched_at` within the given UTC days ('YYYY-MM-DD'), as keyed ranges, with their parameters. */
function launchDays(days: string[]): { where: string; params: Record<string, number> } {
  const params: Record<string, number> = {}
  const ranges = days.map((d, i) => {
    params[`d${i}`] = Date.parse(`${d}T00:00:00Z`) / 1000
    return `(launched_at >= toDateTime({d${i}:UInt32}) AND launched_at < toDateTime({d${i}:UInt32} + 86400))`
  })
  return { where: `(${ranges.join(' OR ')})`, params }
}

/** Copy aside the surviving verdicts and marks of the launch days that rows at or above `fromBlock` belong to. */
export async function setAsideOutcomes(ch: ClickHouseClient, chainId: number, fromBlock: number): Promise<void> {
  const rows = await queryRows<{ d: string }>(
    ch,
    `SELECT DISTINCT toString(toDate(launched_at)) AS d FROM (${OUTCOME_SOURCES.map(([t, col]) => `SELECT launched_at FROM ${t} WHERE chain_id = {chain:UInt32} AND ${col} >= {from:UInt64}`).join(' UNION ALL ')})`,
    { chain: chainId, from: fromBlock },
  )
  const days = rows.map((r) => r.d)
  if (days.length === 0) return
  const keyTable = scratchKeys(chainId, OUTCOMES)
  for (const t of [keyTable, ...OUTCOME_SOURCES.map(([s]) => scratchTable(chainId, s))]) await ch.command({ query: `DROP TABLE IF EXISTS ${t}` })
  await ch.command({ query: `CREATE TABLE ${keyTable} (k String) ENGINE = MergeTree ORDER BY k` })
  await ch.insert({ table: keyTable, values: days.map((k) => ({ k })), format: 'JSONEachRow' })
  const { where, params } = launchDays(days)
  for (const [source, col] of OUTCOME_SOURCES) {
    const scratch = scratchTable(chainId, source)
    await ch.command({ query: `CREATE TABLE ${scratch} AS ${source} ENGINE = MergeTree ORDER BY tuple()` })
    await ch.command({
      query: `INSERT INTO ${scratch} SELECT * FROM ${source} WHERE chain_id = {chain:UInt32} AND ${where} AND ${col} < {from:UInt64}`,
      query_params: { chain: chainId, from: fromBlock, ...params },
    })
  }
}

/**
 * Rebuild the launch days set aside: drop their aggregates and their verdicts and marks, then
 * insert the set-aside rows again so the views see them anew. Idempotent like replayScratch: a
 * rerun after a crash before the scratch tables are dropped redoes the same days from the same
 * rows; once one scratch table is dropped the replay had finished.
 */
async function replayOutcomes(ch: ClickHouseClient, chainId: number): Promise<void> {
  const keyTable = scratchKeys(chainId, OUTCOMES)
  if (!(await tableExists(ch, keyTable))) return
  const scratches = OUTCOME_SOURCES.map(([s]) => scratchTable(chainId, s))
  const present = await Promise.all(scratches.map((t) => tableExists(ch, t)))
  if (present.every(Boolean)) {
    const days = (await queryRows<{ k: string }>(ch, `SELECT DISTINCT k FROM ${keyTable}`)).map((x) => x.k)
    const { where, params } = launchDays(days)
    const p = { chain: chainId, ...params }
    await ch.command({ query: 'DELETE FROM outcome_rollup WHERE chain_id = {chain:UInt32} AND launch_day IN {days:Array(Date)}', query_params: { chain: chainId, days } })
    for (const t of ['basket_closes', ...OUTCOME_SOURCES.map(([s]) => s)]) {
      await ch.command({ query: `DELETE FROM ${t} WHERE chain_id = {chain:UInt32} AND ${where}`, query_params: p })
    }
    for (const [source] of OUTCOME_SOURCES) {
      await ch.command({ query: `INSERT INTO ${source} SELECT * FROM ${scratchTable(chainId, source)}`, clickhouse_settings: { insert_deduplicate: 0 } })
    }
  }
  for (const t of scratches) await ch.command({ query: `DROP TABLE IF EXISTS ${t}` })
  await ch.command({ query: `DROP TABLE ${keyTable}` })
}

/** Wallet-token pairs whose FIFO state a rollback must rebuild (they traded in orphaned blocks). */
const fifoScratch = (chainId: number) => `rollback_${chainId}_fifo_pairs`

/**
 * Rebuild the FIFO state of the pairs set aside, from their surviving legs (the legs are rebuilt
 * first, by the swaps replay). Idempotent like the replays: the pair list goes last.
 */
async function refoldScratch(ch: ClickHouseClient, chainId: number): Promise<string[]> {
  const t = fifoScratch(chainId)
  if (!(await tableExists(ch, t))) return []
  const pairs = await queryRows<{ wallet: string; token: string }>(ch, `SELECT DISTINCT wallet, token FROM ${t}`)
  await refoldPairs(ch, chainId, pairs.map((p): WalletToken => [p.wallet, p.token]))
  await ch.command({ query: `DROP TABLE ${t}` })
  return [...new Set(pairs.map((p) => p.wallet))]
}

/** Finish replays that a dead process left in scratch tables. Returns the tokens involved. */
export async function recoverRollbacks(ch: ClickHouseClient, chainId: number): Promise<string[]> {
  const tokens: string[] = []
  for (const r of REPLAYED) {
    const keys = await replayScratch(ch, chainId, r)
    if (r.key === 'token') tokens.push(...keys)
  }
  await replayOutcomes(ch, chainId)
  lastRefolded = await refoldScratch(ch, chainId)
  return tokens
}

/** Wallets whose FIFO state the last recovery rebuilt. */
let lastRefolded: string[] = []

/**
 * Delete everything at or above `fromBlock` on `chainId` and rebuild the affected aggregates.
 * `touching` hears what the orphaned blocks touched before anything is deleted (and is awaited: it
 * records it durably): a rollback that fails after its deletes is run again on rows that are
 * gone, and would find nothing to refresh.
 */
export async function rollbackChain(
  ch: ClickHouseClient,
  chainId: number,
  fromBlock: number,
  hashes: { old: string; new: string },
  touching: (touched: RollbackResult) => Promise<void> | void = () => {},
): Promise<RollbackResult> {
  const params = { chain: chainId, from: fromBlock }
  // Recorded first: the reorg count is part of every later batch token.
  await ch.insert({
    table: 'chain_reorgs',
    values: [{ chain_id: chainId, from_block: fromBlock, old_hash: hashes.old, new_hash: hashes.new }],
    format: 'JSONEachRow',
  })
  // 1. Set aside what survives of every affected key, before anything is deleted, and the
  //    wallet-token pairs whose FIFO state folded orphaned legs.
  const fifoPairs = fifoScratch(chainId)
  await ch.command({ query: `DROP TABLE IF EXISTS ${fifoPairs}` })
  await ch.command({ query: `CREATE TABLE ${fifoPairs} (wallet String, token String) ENGINE = MergeTree ORDER BY (wallet, token)` })
  await ch.command({
    query: `INSERT INTO ${fifoPairs} SELECT DISTINCT trader, token FROM swaps WHERE chain_id = {chain:UInt32} AND block_number >= {from:UInt64}`,
    query_params: params,
  })
  const affectedTokens: string[] = []
  for (const r of REPLAYED) {
    const rows = await queryRows<{ k: string }>(ch, `SELECT DISTINCT ${r.key} AS k FROM ${r.source} WHERE chain_id = {chain:UInt32} AND block_number >= {from:UInt64}`, params)
    const keys = rows.map((x) => x.k)
    if (r.source === 'swaps') affectedTokens.push(...keys)
    if (keys.length > 0) await setAside(ch, chainId, r, keys, fromBlock)
  }
  await setAsideOutcomes(ch, chainId, fromBlock)
  const touched = await queryRows<{ t: string }>(
    ch,
    `SELECT DISTINCT t FROM (
       SELECT token AS t FROM erc20_transfers WHERE chain_id = {chain:UInt32} AND block_number >= {from:UInt64}
       UNION ALL SELECT address AS t FROM contract_creations WHERE chain_id = {chain:UInt32} AND block_number >= {from:UInt64}
       UNION ALL SELECT token AS t FROM launches WHERE chain_id = {chain:UInt32} AND block_number >= {from:UInt64}
       UNION ALL SELECT p.token AS t FROM (SELECT pool FROM liquidity_events WHERE chain_id = {chain:UInt32} AND block_number >= {from:UInt64}) AS l
                 INNER JOIN (SELECT token, pool FROM launches WHERE chain_id = {chain:UInt32}) AS p ON p.pool = l.pool)`,
    params,
  )
  const traders = await queryRows<{ wallet: string }>(ch, `SELECT DISTINCT wallet FROM ${fifoPairs}`)
  await touching({ fromBlock, tokens: affectedTokens, touched: [...new Set([...affectedTokens, ...touched.map((r) => r.t)])], wallets: traders.map((r) => r.wallet) })
  // 2. Delete the orphaned rows; the blocks go last, so until then a restart sees the old
  //    hashes and detects the reorg again.
  await ch.command({ query: 'DELETE FROM token_real WHERE chain_id = {chain:UInt32} AND real_block >= {from:UInt64}', query_params: params })
  for (const [table, col] of RAW_TABLES) {
    if (table !== 'chain_blocks') await ch.command({ query: `DELETE FROM ${table} WHERE chain_id = {chain:UInt32} AND ${col} >= {from:UInt64}`, query_params: params })
  }
  // 3. Rebuild the affected aggregates from what was set aside.
  await recoverRollbacks(ch, chainId)
  await ch.command({ query: 'DELETE FROM chain_blocks WHERE chain_id = {chain:UInt32} AND number >= {from:UInt64}', query_params: params })
  await recountChainTotals(ch, chainId)
  return { fromBlock, tokens: affectedTokens, touched: [...new Set([...affectedTokens, ...touched.map((r) => r.t)])], wallets: lastRefolded }
}

/**
 * How many reorgs this chain has had: part of every batch token, so a chain that returns to an
 * earlier fork never has its batches mistaken for the ones deleted.
 */
export async function reorgEpoch(ch: ClickHouseClient, chainId: number): Promise<number> {
  const rows = await queryRows<{ n: string }>(ch, 'SELECT count() AS n FROM chain_reorgs WHERE chain_id = {chain:UInt32}', { chain: chainId })
  return Number(rows[0]?.n ?? 0)
}
