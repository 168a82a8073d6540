import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { sqlFile } from '../../sql/sql-file.ts'
import { LruMap } from '../../core/serving/lru-map.ts'

/**
 * Whole-chain totals (/stats). Counts and sums are added by each batch with its rows; distinct
 * traders and traded tokens are counted here, per batch, by checking the batch's traders and
 * tokens against what the chain has seen, by key. Work proportional to the batch.
 */
export interface BatchTraders {
  /** Senders of the batch's swaps. */
  traders: Set<string>
  /** Tokens the batch's swaps traded. */
  tokens: Set<string>
  /** The batch's first block: a token is newly traded when its first swap is in the batch. */
  fromBlock: number
  /** Names the batch: a refresh that runs again after a crash inserts nothing twice. */
  token: string
}

/**
 * What a processor knows was counted before (in memory, bounded, least recently used dropped
 * first): traders in chain_traders and tokens traded before a served batch. A batch whose traders
 * and tokens are all known asks the engine nothing. Learnt only once a batch's inserts landed (a
 * retried batch finds its counts stored, and its own tokens known, as its first attempt left them);
 * forgotten when totals are recounted (a rollback may take a trader's only swaps away).
 *
 * A processor that starts on an empty chain learns every trader and traded token as it counts
 * them: until one is dropped (the bound reached) or the totals are recounted, what it has not
 * learnt is new, and a batch asks the engine nothing to tell (`knowsAll`).
 */
export class CountedBefore {
  private readonly keys: LruMap<true>
  private complete = false

  constructor(private readonly maxKeys = COUNTED_KEYS_KEPT) {
    this.keys = new LruMap(maxKeys)
  }

  /** Whether every trader and traded token counted on the chain is kept here. */
  get knowsAll(): boolean {
    return this.complete
  }

  /** The chain has nothing counted yet (its processor starts on an empty chain). */
  startEmpty(): void {
    this.keys.clear()
    this.complete = true
  }

  /** Of a batch's traders and tokens, those not learnt (with `knowsAll`: the new ones). */
  unknown(traders: readonly string[], tokens: readonly string[]): { traders: string[]; tokens: string[] } {
    return { traders: traders.filter((t) => !this.keys.has(`t:${t}`)), tokens: tokens.filter((t) => !this.keys.has(`k:${t}`)) }
  }

  covers(traders: readonly string[], tokens: readonly string[]): boolean {
    return traders.every((t) => this.keys.get(`t:${t}`)) && tokens.every((t) => this.keys.get(`k:${t}`))
  }

  learn(traders: readonly string[], tokens: readonly string[]): void {
    for (const t of traders) this.keys.set(`t:${t}`, true)
    for (const t of tokens) this.keys.set(`k:${t}`, true)
    // At the bound, a key may have been dropped: from then on an unknown key may be an old one.
    if (this.keys.size >= this.maxKeys) this.complete = false
  }

  forget(): void {
    this.keys.clear()
    this.complete = false
  }
}

/**
 * The batch's share of its chain's running totals, inserted with the batch's raw rows (one row,
 * under the batch's deduplication token: a redelivered batch adds nothing). Counted here rather
 * than by a view on each raw table: five views wrote five parts a batch, one row writes one.
 * Rows are counted as inserted, duplicates included, as the views counted them; a reorg recounts.
 */
export function batchTotalsRow(
  chainId: number,
  rows: { blocks: Array<Record<string, unknown>>; creations: unknown[]; pools: unknown[]; transfers: unknown[]; swaps: Array<Record<string, unknown>> },
): Record<string, unknown> {
  let wethVolume = 0n
  for (const s of rows.swaps) wethVolume += BigInt(s.weth_in as string) + BigInt(s.weth_out as string)
  let lastBlockTime = 0
  for (const b of rows.blocks) lastBlockTime = Math.max(lastBlockTime, b.timestamp as number)
  return {
    chain_id: chainId,
    blocks: rows.blocks.length,
    last_block_time: lastBlockTime,
    creations: rows.creations.length,
    pools: rows.pools.length,
    transfers: rows.transfers.length,
    swaps: rows.swaps.length,
    weth_volume: wethVolume.toString(),
  }
}

/** Traders and tokens a processor remembers as counted (about 100 bytes each). */
const COUNTED_KEYS_KEPT = 100_000

/** Count the batch's traders and traded tokens that are new to the chain. */
export async function countNewTraders(ch: ClickHouseClient, chainId: number, batch: BatchTraders, counted?: CountedBefore): Promise<void> {
  if (batch.traders.size === 0) return
  const traders = [...batch.traders]
  const tokens = [...batch.tokens]
  if (counted?.covers(traders, tokens)) return
  const { fresh, freshTokens } = counted?.knowsAll ? freshOf(counted.unknown(traders, tokens)) : await readFresh(ch, chainId, batch, traders, tokens)
  // Most live batches trade only known tokens among known traders: nothing to count, no insert.
  if (fresh.length === 0 && freshTokens === 0) return counted?.learn(traders, tokens)
  const dedup = (table: string) => ({ insert_deduplicate: 1 as const, insert_deduplication_token: `${batch.token}:${table}` })
  // Totals first: a crash between the two inserts re-runs both, and the tokens drop the repeats.
  await ch.insert({
    table: 'chain_totals',
    values: [{ chain_id: chainId, traders: fresh.length, tokens_traded: freshTokens }],
    format: 'JSONEachRow',
    clickhouse_settings: dedup('chain_totals'),
  })
  if (fresh.length) {
    await ch.insert({ table: 'chain_traders', values: fresh.map((trader) => ({ chain_id: chainId, trader })), format: 'JSONEachRow', clickhouse_settings: dedup('chain_traders') })
  }
  counted?.learn(traders, tokens)
}

const freshOf = (u: { traders: string[]; tokens: string[] }) => ({ fresh: u.traders, freshTokens: u.tokens.length })

/**
 * One read: the batch's traders already counted, and its tokens traded before it (token_activity
 * by key: a token whose first swap precedes the batch). Answers those that are not.
 */
async function readFresh(ch: ClickHouseClient, chainId: number, batch: BatchTraders, traders: string[], tokens: string[]): Promise<{ fresh: string[]; freshTokens: number }> {
  const known = await queryRows<{ kind: 'trader' | 'token'; key: string }>(
    ch,
    `SELECT DISTINCT 'trader' AS kind, trader AS key FROM chain_traders WHERE chain_id = {chain:UInt32} AND trader IN {t:Array(String)}
     UNION ALL
     SELECT 'token' AS kind, token AS key FROM token_activity WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)}
     GROUP BY token HAVING min(first_swap_block) < {from:UInt64}`,
    { chain: chainId, t: traders, tokens, from: batch.fromBlock },
  )
  const seen = new Set(known.filter((r) => r.kind === 'trader').map((r) => r.key))
  const before = new Set(known.filter((r) => r.kind === 'token').map((r) => r.key))
  return { fresh: traders.filter((t) => !seen.has(t)), freshTokens: tokens.filter((t) => !before.has(t)).length }
}

/** Recount the chain's totals from the raw tables (after a reorg; once on an older data dir). */
export async function recountChainTotals(ch: ClickHouseClient, chainId: number): Promise<void> {
  const p = { chain: chainId }
  await ch.command({ query: 'DELETE FROM chain_totals WHERE chain_id = {chain:UInt32}', query_params: p })
  await ch.command({ query: 'DELETE FROM chain_traders WHERE chain_id = {chain:UInt32}', query_params: p })
  await ch.command({ query: 'INSERT INTO chain_traders SELECT DISTINCT chain_id, trader FROM swaps WHERE chain_id = {chain:UInt32}', query_params: p })
  await ch.command({ query: sqlFile(new URL('./recount-chain-totals.sql', import.meta.url)), query_params: p, clickhouse_settings: { insert_deduplicate: 0 } })
}

/** Whether the chain has rows but no totals (a data dir from before chain_totals). */
export async function chainTotalsMissing(ch: ClickHouseClient, chainId: number): Promise<boolean> {
  const [r] = await queryRows<{ totals: string; blocks: string }>(
    ch,
    `SELECT (SELECT count() FROM chain_totals WHERE chain_id = {chain:UInt32}) AS totals,
            (SELECT count() FROM (SELECT 1 FROM chain_blocks WHERE chain_id = {chain:UInt32} LIMIT 1)) AS blocks`,
    { chain: chainId },
  )
  return Number(r!.totals) === 0 && Number(r!.blocks) > 0
}
