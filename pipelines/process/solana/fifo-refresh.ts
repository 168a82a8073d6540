import type { ClickHouseClient } from '../../../core/clickhouse.ts'
import { queryRows } from '../../../core/clickhouse.ts'
import { chunks } from '../../../core/chunks.ts'
import { FIFO_LEG_TYPE, FIFO_STATE_TYPE, fifoFold, fifoInitialState } from '../../../core/domain/fifo-sql.ts'
import { tupleParam } from '../../social/grade-reads.ts'
import type { SolanaTradeRow } from './usd-leg-step.ts'

/**
 * The Solana venue's FIFO per (wallet, mint), kept in solana_fifo_state as trades arrive, with the
 * one FIFO core (core/domain/fifo-sql.ts) in ClickHouse. A leg is (side, token_qty, usd_micro,
 * block_time), in the order (block time, slot, signature, side). Work per batch is the batch:
 *
 *  1. before the trades are inserted (`planSolanaFold`), one keyed read of the touched pairs'
 *     states. A trade at or before its pair's last folded key is either one already stored (a
 *     redelivery: looked up by its key in solana_trades) or a late leg, which FIFO cannot take
 *     from the end: that pair's state and hold counts are deleted, so it is folded from its first
 *     leg (rare; a delivery out of time order);
 *  2. after the insert (`foldSolana`), the pairs with a state fold only their legs after the
 *     state's key, read from the batch's earliest block time on (a keyed range per pair); pairs
 *     without one fold every leg.
 *
 * Idempotent across crashes: every earlier batch was folded before its offsets were committed, so
 * a pair's unfolded legs are all in the batch being written (or were redelivered into it); a
 * repeated fold finds nothing after the state's key and inserts nothing; a crash after the deletes
 * leaves the pair without a state, which folds it whole.
 */

type Pair = [wallet: string, mint: string]

/** What `foldSolana` folds after the batch's insert. */
export interface SolanaFoldPlan {
  /** Earliest block time of the batch (unix seconds): where stated pairs' new legs start. */
  from: number
  /** Pairs with a state: fold their legs after its key. */
  stated: Pair[]
  /** Pairs without one (new, or a late leg made them start over): fold every leg. */
  whole: Pair[]
  /** Pairs that received a leg older than their state (counted, for the log). */
  late: number
}

/** Pairs per statement (IN lists). */
const PAIRS_PER_STATEMENT = 5_000

/** The pairs of a statement: the wallet list narrows the key range, the tuple list picks the mints. */
const PAIRS = 'wallet IN {wallets:Array(String)} AND (wallet, mint) IN {pairs:Array(Tuple(String, String))}'
const pairParams = (pairs: Pair[]) => ({ wallets: [...new Set(pairs.map((p) => p[0]))], pairs: tupleParam(pairs) })

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
  let from = Number.MAX_SAFE_INTEGER
  for (const r of rows) {
    pairs.set(`${r.wallet}/${r.mint}`, [r.wallet, r.mint])
    from = Math.min(from, r.block_time)
  }
  const through = new Map<string, LegKey>()
  for (const part of chunks([...pairs.values()], PAIRS_PER_STATEMENT)) {
    const states = await queryRows<{ wallet: string; mint: string; t: number; slot: string; signature: string; side: number }>(
      ch,
      `SELECT wallet, mint, toUnixTimestamp(through.t) AS t, toString(through.slot) AS slot, through.signature AS signature, through.side AS side
       FROM solana_fifo_state WHERE ${PAIRS} ORDER BY wallet, mint, legs DESC LIMIT 1 BY wallet, mint`,
      pairParams(part),
    )
    for (const s of states) through.set(`${s.wallet}/${s.mint}`, [Number(s.t), BigInt(s.slot), s.signature, Number(s.side)])
  }
  // Trades at or before their pair's state: stored already (redelivered), or late.
  const behind = rows.filter((r) => {
    const k = through.get(`${r.wallet}/${r.mint}`)
    return k !== undefined && compareKeys(keyOf(r), k) <= 0
  })
  const late = new Map<string, Pair>()
  for (const part of chunks(behind, PAIRS_PER_STATEMENT)) {
    const stored = await queryRows<{ wallet: string; mint: string; t: number; signature: string; side: string }>(
      ch,
      `SELECT DISTINCT wallet, mint, toUnixTimestamp(block_time) AS t, signature, toString(side) AS side FROM solana_trades
       WHERE wallet IN {wallets:Array(String)} AND (wallet, mint, block_time, signature, side) IN {keys:Array(Tuple(String, String, DateTime('UTC'), String, String))}`,
      { wallets: [...new Set(part.map((r) => r.wallet))], keys: tupleParam(part.map((r) => [r.wallet, r.mint, r.block_time, r.signature, r.side])) },
    )
    const known = new Set(stored.map((s) => `${s.wallet}/${s.mint}/${s.t}/${s.signature}/${s.side}`))
    for (const r of part) if (!known.has(`${r.wallet}/${r.mint}/${r.block_time}/${r.signature}/${r.side}`)) late.set(`${r.wallet}/${r.mint}`, [r.wallet, r.mint])
  }
  // Hold counts first: a crash between the two deletes leaves the state, so the leg is still late on redelivery.
  for (const part of chunks([...late.values()], PAIRS_PER_STATEMENT)) {
    for (const table of ['solana_hold_counts', 'solana_fifo_state']) await ch.command({ query: `DELETE FROM ${table} WHERE ${PAIRS}`, query_params: pairParams(part) })
  }
  const stated: Pair[] = []
  const whole: Pair[] = []
  for (const [k, p] of pairs) (through.has(k) && !late.has(k) ? stated : whole).push(p)
  return { from, stated, whole, late: late.size }
}

/** Step 2, after the insert: fold the planned pairs' new legs onto their states. */
export async function foldSolana(ch: ClickHouseClient, plan: SolanaFoldPlan, token?: string): Promise<void> {
  const runs: Array<[name: string, pairs: Pair[], from: number]> = [['stated', plan.stated, plan.from], ['whole', plan.whole, 0]]
  for (const [name, pairs, from] of runs) {
    let i = 0
    for (const part of chunks(pairs, PAIRS_PER_STATEMENT)) {
      await ch.command({
        query: FOLD_SQL,
        query_params: { ...pairParams(part), from },
        clickhouse_settings: token ? { insert_deduplication_token: `${token}:solana_fifo_state:${name}:${i++}` } : {},
      })
    }
  }
}

/** Legs of the statement's pairs from block time `from` on, once each (a redelivered trade may be stored twice). */
const LEGS = `SELECT DISTINCT wallet, mint, block_time, slot, signature, if(side = 'buy', 1, -1) AS side_n, token_qty, usd_micro
  FROM solana_trades WHERE ${PAIRS} AND block_time >= toDateTime({from:UInt32}, 'UTC')`

const keyed = `arraySort(x -> x.1, groupArray(((block_time, slot, signature, side_n), CAST((side_n, toInt256(token_qty), toInt256(usd_micro), toUInt32(block_time)), '${FIFO_LEG_TYPE}'))))`

const fold = fifoFold('arrayMap(x -> x.2, new_legs)', `if(s_found = 1, s_state, ${fifoInitialState()})`)

const FOLD_SQL = `
INSERT INTO solana_fifo_state (wallet, mint, legs, through, state, unmatched_sells, holds_added)
SELECT wallet, mint, s_legs + length(new_legs), new_legs[-1].1, f.1, s_unmatched + arrayCount(x -> x.3 > 0, f.2), arrayFlatten(arrayMap(x -> x.5, f.2))
FROM (
  SELECT wallet, mint, new_legs, s_legs, s_unmatched, ${fold} AS f
  FROM (
    SELECT l.wallet AS wallet, l.mint AS mint, s.found AS s_found, s.legs AS s_legs, s.unmatched_sells AS s_unmatched,
           CAST(s.state, '${FIFO_STATE_TYPE}') AS s_state,
           arrayFilter(x -> s.found = 0 OR x.1 > s.through, l.legs) AS new_legs
    FROM (SELECT wallet, mint, ${keyed} AS legs FROM (${LEGS}) GROUP BY wallet, mint) AS l
    LEFT JOIN (
      SELECT wallet, mint, 1 AS found, legs, through, state, unmatched_sells
      FROM solana_fifo_state WHERE ${PAIRS} ORDER BY wallet, mint, legs DESC LIMIT 1 BY wallet, mint
    ) AS s ON l.wallet = s.wallet AND l.mint = s.mint
  )
  WHERE length(new_legs) > 0
)`
