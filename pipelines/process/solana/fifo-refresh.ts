import type { ClickHouseClient } from '../../../core/clickhouse.ts'
import { queryRows } from '../../../core/clickhouse.ts'
import { chunks } from '../../../core/chunks.ts'
import { FIFO_LEG_TYPE, FIFO_STATE_TYPE, fifoFold, fifoInitialState } from '../../../products/wallet/fifo-sql.ts'
import { tupleParam } from '../../../core/clickhouse.ts'
import type { SolanaTradeRow } from './usd-leg-step.ts'

/**
 * The Solana venue's FIFO per (wallet, mint), kept in solana_fifo_state as trades arrive, with the
 * one FIFO core (products/wallet/fifo-sql.ts) in ClickHouse. A leg is (side, token_qty, usd_micro,
 * block_time), in the order (block time, slot, signature, side). Work per batch is the batch:
 *
 *  1. before the trades are inserted (`planSolanaFold`), one keyed read of the touched pairs'
 *     states. A trade at or before its pair's last folded key is either one already stored (a
 *     redelivery: looked up by its key in solana_trades) or a late leg, which FIFO cannot take
 *     from the end: that pair's state and hold counts are deleted, so it is folded from its first
 *     leg (rare; a delivery out of time order);
 *  2. after the insert (`foldSolana`), the pairs with a state fold the batch's legs after the
 *     state's key, passed with the statement (nothing of solana_trades is read for them); pairs
 *     without one read and fold every stored leg.
 *
 * Idempotent across crashes: every earlier batch was folded before its offsets were committed, so
 * a pair's unfolded legs are in the batch being written or in later deliveries (a redelivery
 * brings back every record after the last committed one, in order, in batches of any size); a
 * repeated fold finds nothing after the state's key and inserts nothing; a crash after the deletes
 * leaves the pair without a state, which folds it whole.
 */

type Pair = [wallet: string, mint: string]

/** What `foldSolana` folds after the batch's insert. */
export interface SolanaFoldPlan {
  /** Pairs with a state: fold their legs after its key, which are all in the batch. */
  stated: Pair[]
  /** The batch's trades of the stated pairs, once each: what they fold (no read of solana_trades). */
  statedLegs: Map<string, SolanaTradeRow[]>
  /** Pairs without one (new, or a late leg made them start over): fold every leg. */
  whole: Pair[]
  /** Pairs that received a leg older than their state (counted, for the log). */
  late: number
}

/** Pairs per statement (IN lists). */
const PAIRS_PER_STATEMENT = 5_000

/** The pairs of a statement: the wallet list narrows the key range, the tuple list picks the mints. */
const pairsWhere = (prefix = '') => `wallet IN {${prefix}wallets:Array(String)} AND (wallet, mint) IN {${prefix}pairs:Array(Tuple(String, String))}`
const PAIRS = pairsWhere()
const pairParams = (pairs: Pair[], prefix = '') => ({ [`${prefix}wallets`]: [...new Set(pairs.map((p) => p[0]))], [`${prefix}pairs`]: tupleParam(pairs) })

/** A pair's and a trade's identity as map keys (a trade: its solana_trades key). */
const pairKey = (wallet: string, mint: string) => `${wallet}/${mint}`
const tradeKey = (t: { wallet: string; mint: string; block_time: number; signature: string; side: string }) => `${t.wallet}/${t.mint}/${t.block_time}/${t.signature}/${t.side}`

/** A leg's order key, compared as ClickHouse compares the `through` tuple. */
type LegKey = [t: number, slot: bigint, signature: string, side: number]
const keyOf = (r: SolanaTradeRow): LegKey => [r.block_time, BigInt(r.slot), r.signature, r.side === 'buy' ? 1 : -1]
function compareKeys(a: LegKey, b: LegKey): number {
  if (a[0] !== b[0]) return a[0] - b[0]
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1
  if (a[2] !== b[2]) return a[2] < b[2] ? -1 : 1
  return a[3] - b[3]
}

/** Step 1, before the batch's trades are inserted: which pairs fold from their state, which whole. */
export async function planSolanaFold(ch: ClickHouseClient, rows: SolanaTradeRow[]): Promise<SolanaFoldPlan> {
  const pairs = new Map<string, Pair>()
  for (const r of rows) pairs.set(pairKey(r.wallet, r.mint), [r.wallet, r.mint])
  const through = new Map<string, LegKey>()
  for (const part of chunks([...pairs.values()], PAIRS_PER_STATEMENT)) {
    const states = await queryRows<{ wallet: string; mint: string; t: number; slot: string; signature: string; side: number }>(
      ch,
      `SELECT wallet, mint, toUnixTimestamp(k.t) AS t, toString(k.slot) AS slot, k.signature AS signature, k.side AS side
       FROM (SELECT wallet, mint, argMax(through, legs) AS k FROM solana_fifo_state WHERE ${PAIRS} GROUP BY wallet, mint)`,
      pairParams(part),
    )
    for (const s of states) through.set(pairKey(s.wallet, s.mint), [Number(s.t), BigInt(s.slot), s.signature, Number(s.side)])
  }
  // Trades at or before their pair's state: stored already (redelivered), or late.
  const behind = rows.filter((r) => {
    const k = through.get(pairKey(r.wallet, r.mint))
    return k !== undefined && compareKeys(keyOf(r), k) <= 0
  })
  const late = new Map<string, Pair>()
  for (const part of chunks(behind, PAIRS_PER_STATEMENT)) {
    const stored = await queryRows<{ wallet: string; mint: string; block_time: number; signature: string; side: string }>(
      ch,
      `SELECT DISTINCT wallet, mint, toUnixTimestamp(block_time) AS block_time, signature, toString(side) AS side FROM solana_trades
       WHERE wallet IN {wallets:Array(String)} AND (wallet, mint, block_time, signature, side) IN {keys:Array(Tuple(String, String, DateTime('UTC'), String, String))}`,
      { wallets: [...new Set(part.map((r) => r.wallet))], keys: tupleParam(part.map((r) => [r.wallet, r.mint, r.block_time, r.signature, r.side])) },
    )
    const known = new Set(stored.map((s) => tradeKey({ ...s, block_time: Number(s.block_time) })))
    for (const r of part) if (!known.has(tradeKey(r))) late.set(pairKey(r.wallet, r.mint), [r.wallet, r.mint])
  }
  // Hold counts first: a crash between the two deletes leaves the state, so the leg is still late on redelivery.
  for (const part of chunks([...late.values()], PAIRS_PER_STATEMENT)) {
    for (const table of ['solana_hold_counts', 'solana_fifo_state']) await ch.command({ query: `DELETE FROM ${table} WHERE ${PAIRS}`, query_params: pairParams(part) })
  }
  const stated: Pair[] = []
  const whole: Pair[] = []
  for (const [k, p] of pairs) (through.has(k) && !late.has(k) ? stated : whole).push(p)
  const statedLegs = new Map<string, SolanaTradeRow[]>()
  const seen = new Set<string>()
  for (const r of rows) {
    const pair = pairKey(r.wallet, r.mint)
    const key = tradeKey(r)
    if (!through.has(pair) || late.has(pair) || seen.has(key)) continue
    seen.add(key)
    const legs = statedLegs.get(pair)
    if (legs) legs.push(r)
    else statedLegs.set(pair, [r])
  }
  return { stated, statedLegs, whole, late: late.size }
}

/**
 * Step 2, after the insert: fold the planned pairs' new legs onto their states. A stated pair's
 * unfolded legs are all in the batch (every earlier batch was folded before it was acknowledged,
 * and a redelivery brings back every record after the last acknowledged one), so they are passed
 * with the statement; a pair folded whole reads its legs from solana_trades. Both kinds go in one
 * statement per chunk of pairs: the fold is the costly part of a statement to plan.
 */
export async function foldSolana(ch: ClickHouseClient, plan: SolanaFoldPlan, token?: string): Promise<void> {
  const entries = [...plan.stated.map((p) => ({ pair: p, whole: false })), ...plan.whole.map((p) => ({ pair: p, whole: true }))]
  let i = 0
  for (const part of chunks(entries, PAIRS_PER_STATEMENT)) {
    const stated = part.filter((e) => !e.whole).map((e) => e.pair)
    const whole = part.filter((e) => e.whole).map((e) => e.pair)
    const legs = stated.flatMap(([w, m]) => plan.statedLegs.get(pairKey(w, m)) ?? [])
    const sources = [...(legs.length ? [BATCH_LEGS] : []), ...(whole.length ? [STORED_LEGS] : [])]
    if (sources.length === 0) continue
    await ch.command({
      query: foldSql(sources.join(' UNION ALL ')),
      query_params: {
        ...pairParams(part.map((e) => e.pair)),
        ...pairParams(whole, 'whole_'),
        legs: tupleParam(legs.map((r) => [r.wallet, r.mint, r.block_time, r.slot, r.signature, r.side === 'buy' ? 1 : -1, BigInt(r.token_qty), BigInt(r.usd_micro)])),
      },
      clickhouse_settings: token ? { insert_deduplication_token: `${token}:solana_fifo_state:${i++}` } : {},
    })
  }
}

/** Legs passed with the statement (the batch's trades of stated pairs). */
const BATCH_LEGS = `SELECT l.1 AS wallet, l.2 AS mint, toDateTime(l.3, 'UTC') AS block_time, l.4 AS slot, l.5 AS signature, l.6 AS side_n, l.7 AS token_qty, l.8 AS usd_micro
  FROM (SELECT arrayJoin({legs:Array(Tuple(String, String, UInt32, UInt64, String, Int8, UInt256, UInt256))}) AS l)`

/** Every stored leg of the pairs folded whole, once each (a redelivered trade may be stored twice). */
const STORED_LEGS = `SELECT DISTINCT wallet, mint, block_time, slot, signature, if(side = 'buy', 1, -1) AS side_n, token_qty, usd_micro
  FROM solana_trades WHERE ${pairsWhere('whole_')}`

const keyed = `arraySort(x -> x.1, groupArray(((block_time, slot, signature, side_n), CAST((side_n, toInt256(token_qty), toInt256(usd_micro), toUInt32(block_time)), '${FIFO_LEG_TYPE}'))))`

const fold = fifoFold('arrayMap(x -> x.2, new_legs)', `if(s_found = 1, s_state, ${fifoInitialState()})`)

const foldSql = (legs: string) => `
INSERT INTO solana_fifo_state (wallet, mint, legs, through, state, unmatched_sells, holds_added)
SELECT wallet, mint, s_legs + length(new_legs), new_legs[-1].1, f.1, s_unmatched + arrayCount(x -> x.3 > 0, f.2), arrayFlatten(arrayMap(x -> x.5, f.2))
FROM (
  SELECT wallet, mint, new_legs, s_legs, s_unmatched, ${fold} AS f
  FROM (
    SELECT l.wallet AS wallet, l.mint AS mint, s.found AS s_found, s.folded AS s_legs, s.unmatched_sells AS s_unmatched,
           CAST(s.state, '${FIFO_STATE_TYPE}') AS s_state,
           arrayFilter(x -> s.found = 0 OR x.1 > s.through, l.legs) AS new_legs
    FROM (SELECT wallet, mint, ${keyed} AS legs FROM (${legs}) GROUP BY wallet, mint) AS l
    LEFT JOIN (
      SELECT wallet, mint, 1 AS found, max(legs) AS folded, argMax(through, legs) AS through, argMax(state, legs) AS state, argMax(unmatched_sells, legs) AS unmatched_sells
      FROM solana_fifo_state WHERE ${PAIRS} GROUP BY wallet, mint
    ) AS s ON l.wallet = s.wallet AND l.mint = s.mint
  )
  WHERE length(new_legs) > 0
)`
