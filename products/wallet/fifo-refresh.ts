import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { chunks } from '../../core/chunks.ts'
import { FIFO_LEG_TYPE, FIFO_STATE_TYPE, fifoFold, type FifoStateJson } from './fifo-sql.ts'
import { emptyFoldState, foldLegs, foldStateJson, foldStateOf } from './fifo-fold.ts'
import { nextServingSeq } from '../../core/records/serving-changes.ts'
import { tupleParam } from '../../core/clickhouse.ts'

/**
 * Advancing the FIFO state of wallet-tokens (migration 021): the legs after each pair's stored
 * position are folded onto its state in ClickHouse and one new state row is inserted per pair
 * (its matched sells go to fifo_sells through a view). Folding only what follows the position
 * makes a repeated call a no-op: a replayed batch or a restarted processor never folds a leg twice.
 */

/** Wallet-token pairs per statement. */
const PAIRS_PER_FOLD = 2_000
/** Legs per pair per statement; a pair with more is folded again from where this one stopped. */
const LEGS_PER_FOLD = 2_000

/** A leg's position in chain order as one number (log indexes stay below 2^24). */
export const LEG_POS = 'block_number * 16777216 + log_index + 1'

export type WalletToken = [wallet: string, token: string]

/**
 * Fold the new legs of `pairs`. `fromBlock`: no pair has an unfolded leg before it unless its
 * stored position says so (the batch's first block; 0 to rebuild). `batch`: the caller knows every
 * unfolded leg of the pairs is at or after `fromBlock`, each pair has `batch.maxLegs` of them at
 * most and all have `batch.legs` (a batch whose earlier batches were all folded): no position
 * lookups, and a batch of few legs (a live one) is folded in the processor (foldHere).
 * Answers the wallets advanced.
 */
export async function foldPairs(ch: ClickHouseClient, chainId: number, pairs: WalletToken[], fromBlock: number, batch?: { maxLegs: number; legs: number }): Promise<Set<string>> {
  const wallets = new Set<string>()
  const bounded = batch !== undefined && batch.maxLegs < LEGS_PER_FOLD
  const here = bounded && batch.legs <= FOLD_HERE_LEGS
  for (const part of chunks(pairs, PAIRS_PER_FOLD)) {
    for (;;) {
      const params = { chain: chainId, pairs: tupleParam(part), version: nextServingSeq() }
      if (here) {
        await foldHere(ch, chainId, part, fromBlock, params.version)
        for (const [w] of part) wallets.add(w)
        break
      }
      if (bounded) {
        await ch.command({ query: foldQuery, query_params: { ...params, min_block: fromBlock, per_pair: LEGS_PER_FOLD } })
        for (const [w] of part) wallets.add(w)
        break
      }
      // Where the chunk's legs start: the earliest stored position among the pairs, and the batch.
      const [pos] = await queryRows<{ min_block: string }>(
        ch,
        `SELECT least(toUInt64({from:UInt64}), ifNull(min(intDiv(through_pos, 16777216)), toUInt64({from:UInt64}))) AS min_block
         FROM (SELECT through_pos FROM fifo_state WHERE chain_id = {chain:UInt32} AND (wallet, token) IN {pairs:Array(Tuple(String, String))}
               ORDER BY wallet, token, version DESC LIMIT 1 BY wallet, token)`,
        { ...params, from: fromBlock },
      )
      const minBlock = Number(pos?.min_block ?? 0)
      await ch.command({ query: foldQuery, query_params: { ...params, min_block: minBlock, per_pair: LEGS_PER_FOLD } })
      const [more] = await queryRows<{ n: string }>(ch, moreQuery, { ...params, min_block: minBlock })
      for (const [w] of part) wallets.add(w)
      if (Number(more?.n ?? 0) === 0) break
    }
  }
  return wallets
}

/**
 * Legs up to which a batch's fold runs in the processor (fifo-fold.ts) rather than in the engine:
 * a live batch has a few dozen at most; a backfill batch tens of thousands, whose states and
 * legs would cross the wire as JSON (slower than the engine's fold of them, stop 52).
 */
const FOLD_HERE_LEGS = 256

/** A leg of one of `pairs` from the batch's first block (LEGS: each once, in leg order), as foldHere reads it. */
interface LegRow {
  wallet: string
  token: string
  pos: string
  block_number: string
  log_index: number
  block_time: string
  t: number
  side: number
  qty: string
  cost: string
}

/** A pair's stored state, as foldHere reads it. */
interface StateRow {
  wallet: string
  token: string
  through_pos: string
  legs: string
  state: FifoStateJson
  unmatched_sells: string
}

/**
 * Fold `pairs`' legs from `minBlock` on in the processor (the caller knows they are all there and
 * few): the legs and the stored states read by key side by side (each state once, however many
 * legs its pair has), the legs after each state's position folded onto it (fifo-fold.ts), one
 * insert of the new states: the rows foldQuery writes.
 */
async function foldHere(ch: ClickHouseClient, chainId: number, pairs: WalletToken[], minBlock: number, version: number): Promise<void> {
  const params = { chain: chainId, pairs: tupleParam(pairs), min_block: minBlock }
  const [legs, stored] = await Promise.all([
    queryRows<LegRow>(ch, `SELECT *, toUnixTimestamp(block_time) AS t FROM (${LEGS})`, params),
    queryRows<StateRow>(ch, PREV, params),
  ])
  const states = new Map(stored.map((r) => [`${r.wallet}/${r.token}`, r]))
  const byPair = new Map<string, LegRow[]>()
  for (const l of legs) {
    const k = `${l.wallet}/${l.token}`
    // Only legs after the stored position: a replayed batch folds nothing twice.
    if (BigInt(l.pos) <= BigInt(states.get(k)?.through_pos ?? 0)) continue
    const of = byPair.get(k)
    if (of) of.push(l)
    else byPair.set(k, [l])
  }
  const rows = [...byPair].map(([k, pairLegs]) => {
    const prev = states.get(k)
    const { state, sells } = foldLegs(pairLegs.map((l) => ({ side: l.side, qty: BigInt(l.qty), cost: BigInt(l.cost), t: Number(l.t) })), prev ? foldStateOf(prev.state) : emptyFoldState())
    return {
      chain_id: chainId, wallet: pairLegs[0]!.wallet, token: pairLegs[0]!.token, through_pos: pairLegs[pairLegs.length - 1]!.pos,
      legs: String(BigInt(prev?.legs ?? 0) + BigInt(pairLegs.length)), state: foldStateJson(state),
      sells_added: sells.map((x) => {
        const l = pairLegs[x.leg - 1]!
        return { block_number: l.block_number, log_index: l.log_index, block_time: l.block_time, qty: l.qty, proceeds: l.cost, matched_cost: String(x.matchedCost), unmatched_qty: String(x.unmatchedQty), realized: String(x.realized), closed_holds: x.closedHolds }
      }),
      version, unmatched_sells: String(BigInt(prev?.unmatched_sells ?? 0) + BigInt(sells.filter((x) => x.unmatchedQty > 0n).length)),
    }
  })
  if (rows.length) await ch.insert({ table: 'fifo_state', values: rows, format: 'JSONEachRow' })
}

/** Stored state of the pairs (newest version each). */
const PREV = `SELECT wallet, token, through_pos, legs, state, unmatched_sells FROM fifo_state
  WHERE chain_id = {chain:UInt32} AND (wallet, token) IN {pairs:Array(Tuple(String, String))}
  ORDER BY wallet, token, version DESC LIMIT 1 BY wallet, token`

/** The pairs' legs from min_block on, one row per leg (a replayed view may have written a leg twice). */
const LEGS = `SELECT wallet, token, ${LEG_POS} AS pos, block_number, log_index, block_time, side, qty, cost FROM wallet_legs
  WHERE chain_id = {chain:UInt32} AND (wallet, token) IN {pairs:Array(Tuple(String, String))} AND block_number >= {min_block:UInt64}
  ORDER BY wallet, token, block_number, log_index LIMIT 1 BY wallet, token, block_number, log_index`

const foldQuery = `
INSERT INTO fifo_state (chain_id, wallet, token, through_pos, legs, state, sells_added, version, unmatched_sells)
SELECT {chain:UInt32}, wallet, token, legs_arr[-1].1, prev_legs + length(legs_arr), f.1,
       arrayMap(s -> (legs_arr[s.1].2, legs_arr[s.1].3, legs_arr[s.1].4, legs_arr[s.1].6, legs_arr[s.1].7, s.2, s.3, s.4, s.5), f.2),
       {version:UInt64}, prev_unmatched + arrayCount(s -> s.3 > 0, f.2)
FROM (
  SELECT wallet, token, legs_arr, prev_legs, prev_unmatched,
         ${fifoFold(`arrayMap(x -> CAST((x.5, x.6, x.7, toUInt32(x.4)), '${FIFO_LEG_TYPE}'), legs_arr)`, `CAST(prev_state, '${FIFO_STATE_TYPE}')`)} AS f
  FROM (
    SELECT l.wallet AS wallet, l.token AS token, any(p.legs) AS prev_legs, any(p.state) AS prev_state, any(p.unmatched_sells) AS prev_unmatched,
           arraySort(x -> x.1, groupArray((l.pos, l.block_number, l.log_index, l.block_time, l.side, l.qty, l.cost))) AS all_legs,
           arraySlice(all_legs, 1, {per_pair:UInt32}) AS legs_arr
    FROM (${LEGS}) AS l
    LEFT JOIN (${PREV}) AS p ON p.wallet = l.wallet AND p.token = l.token
    WHERE l.pos > p.through_pos
    GROUP BY l.wallet, l.token
  )
)`

/** Pairs that still have legs after their stored position (more than one fold's worth). */
const moreQuery = `
SELECT count() AS n FROM (${LEGS}) AS l
LEFT JOIN (${PREV}) AS p ON p.wallet = l.wallet AND p.token = l.token
WHERE l.pos > p.through_pos`

/** Wallet-token pairs with legs in a range of blocks, the most legs one of them has there, and their legs in all. */
export interface TradedPairs {
  pairs: WalletToken[]
  maxLegs: number
  legs: number
}

/** A swap gives its trader a leg of its token when its token amounts differ (as wallet_legs takes it). */
const swapMakesLeg = (swap: { token_in: string; token_out: string }) => swap.token_in !== swap.token_out

/** The traded pairs of a batch's swap rows, without reading them back (what pairsTradedIn reads). */
export function pairsOfSwaps(swaps: Array<{ trader: string; token: string; token_in: string; token_out: string }>): TradedPairs {
  const legs = new Map<string, { pair: WalletToken; n: number }>()
  for (const s of swaps) {
    if (!swapMakesLeg(s)) continue
    const k = `${s.trader}/${s.token}`
    const e = legs.get(k)
    if (e) e.n++
    else legs.set(k, { pair: [s.trader, s.token], n: 1 })
  }
  const counts = [...legs.values()].map((e) => e.n)
  return { pairs: [...legs.values()].map((e) => e.pair), maxLegs: Math.max(0, ...counts), legs: counts.reduce((a, b) => a + b, 0) }
}

/** The wallet-token pairs traded in blocks [from, to] and their most legs (a block-range read of swaps). */
export async function pairsTradedIn(ch: ClickHouseClient, chainId: number, from: number, to: number): Promise<TradedPairs> {
  const rows = await queryRows<{ trader: string; token: string; n: string }>(
    ch,
    `SELECT trader, token, count() AS n FROM swaps WHERE chain_id = {chain:UInt32} AND block_number BETWEEN {from:UInt64} AND {to:UInt64} AND token_in != token_out
     GROUP BY trader, token`,
    { chain: chainId, from, to },
  )
  const counts = rows.map((r) => Number(r.n))
  return { pairs: rows.map((r) => [r.trader, r.token]), maxLegs: Math.max(0, ...counts), legs: counts.reduce((a, b) => a + b, 0) }
}

/**
 * Fold what blocks [from, to] traded: the batch step (and a restart's catch-up of the batch it
 * had inserted). Every earlier batch was folded before it was served, so the pairs' unfolded legs
 * are all in the range. Answers the wallets whose receipts changed.
 */
export async function foldBlocks(ch: ClickHouseClient, chainId: number, from: number, to: number, traded?: TradedPairs): Promise<Set<string>> {
  const { pairs, maxLegs, legs } = traded ?? (await pairsTradedIn(ch, chainId, from, to))
  return pairs.length ? foldPairs(ch, chainId, pairs, from, { maxLegs, legs }) : new Set()
}

/**
 * Forget the FIFO state of `pairs` and fold their legs again from the first: after a reorg removed
 * some of their legs (a state cannot give back what it folded).
 */
export async function refoldPairs(ch: ClickHouseClient, chainId: number, pairs: WalletToken[]): Promise<Set<string>> {
  for (const part of chunks(pairs, PAIRS_PER_FOLD)) {
    const p = { chain: chainId, pairs: tupleParam(part) }
    await ch.command({ query: 'DELETE FROM fifo_state WHERE chain_id = {chain:UInt32} AND (wallet, token) IN {pairs:Array(Tuple(String, String))}', query_params: p })
    for (const table of ['fifo_sells', 'fifo_hold_counts']) {
      await ch.command({ query: `DELETE FROM ${table} WHERE chain_id = {chain:UInt32} AND (wallet, token) IN {pairs:Array(Tuple(String, String))}`, query_params: p })
    }
  }
  return foldPairs(ch, chainId, pairs, 0)
}

/**
 * Bring every wallet-token's FIFO state in line with its legs, at the processor's start: a pair
 * whose folded leg count differs from its wallet_legs count is folded again from nothing (a pair
 * without a state is simply folded). That covers a data dir from before migration 021 (no state
 * at all), history loaded behind the processor's back, and a data dir written by a version that
 * skipped legs (issue 24: a batch starting at block 0 was never folded, and later batches moved
 * the position past its legs). One grouped read of the legs and states per chain; answers the
 * pairs folded or refolded.
 */
export async function catchUpFifo(ch: ClickHouseClient, chainId: number): Promise<number> {
  const pairs = await misfoldedPairs(ch, chainId)
  const unstated = pairs.filter((p) => !p.stated).map((p): WalletToken => [p.wallet, p.token])
  const stated = pairs.filter((p) => p.stated).map((p): WalletToken => [p.wallet, p.token])
  if (unstated.length) await foldPairs(ch, chainId, unstated, 0)
  if (stated.length) await refoldPairs(ch, chainId, stated)
  return pairs.length
}

/** Pairs whose stored state folded another number of legs than wallet_legs holds for them (once each). */
export async function misfoldedPairs(ch: ClickHouseClient, chainId: number): Promise<Array<{ wallet: string; token: string; stated: boolean }>> {
  const rows = await queryRows<{ wallet: string; token: string; stated: number }>(
    ch,
    `SELECT if(l.has, l.wallet, s.wallet) AS wallet, if(l.has, l.token, s.token) AS token, s.has AS stated
     FROM (SELECT wallet, token, uniqExact(block_number, log_index) AS n, 1 AS has FROM wallet_legs WHERE chain_id = {chain:UInt32} GROUP BY wallet, token) AS l
     FULL OUTER JOIN (SELECT wallet, token, argMax(legs, version) AS n, 1 AS has FROM fifo_state WHERE chain_id = {chain:UInt32} GROUP BY wallet, token) AS s
     ON l.wallet = s.wallet AND l.token = s.token
     WHERE l.n != s.n
     ORDER BY wallet, token`,
    { chain: chainId },
  )
  return rows.map((r) => ({ wallet: r.wallet, token: r.token, stated: Number(r.stated) === 1 }))
}
