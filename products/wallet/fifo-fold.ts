import type { FifoStateJson } from './fifo-sql.ts'

/**
 * The FIFO fold in the processor, for a live batch's few wallet-tokens (products/wallet/fifo-refresh.ts).
 * The rules are fifo-sql.ts's, and so are the results, to the wei: the SQL fold stays the one that
 * folds in bulk (backfill batches, rebuilds, refolds after a reorg, the Solana venue), and
 * test/integration/fifo-core.test.ts holds the two equal, each to an independent reference, on
 * random legs. Why a second one: the engine plans the SQL fold's expression on every statement, and
 * that planning was most of a live batch's fold (70 ms of the engine's CPU a batch, 25% of all its
 * statements' CPU on an idle service); here a batch's legs fold in microseconds and the engine
 * only stores the rows.
 */

/** One leg: side 1 = buy, -1 = sell; quantity and cost (proceeds for a sell) >= 0; time in Unix seconds. */
export interface FoldLeg {
  side: number
  qty: bigint
  cost: bigint
  t: number
}

/** FIFO_STATE_TYPE with bigints: open lots oldest first and the running sums. */
export interface FoldState {
  lots: Array<{ qty: bigint; cost: bigint; openedAt: number }>
  realized: bigint
  sells: bigint
  winningSells: bigint
  unmatchedQty: bigint
  matchedCost: bigint
  spent: bigint
  received: bigint
}

/** FIFO_SELL_TYPE: what one sell did (`leg`: its 1-based index among the legs folded). */
export interface FoldSell {
  leg: number
  matchedCost: bigint
  unmatchedQty: bigint
  realized: bigint
  closedHolds: number[]
}

/** The state of a wallet-token with no legs (fifoInitialState()). */
export function emptyFoldState(): FoldState {
  return { lots: [], realized: 0n, sells: 0n, winningSells: 0n, unmatchedQty: 0n, matchedCost: 0n, spent: 0n, received: 0n }
}

/**
 * Fold `legs` (in leg order) onto `from` (not changed): the new state and one entry per sell.
 * A sell takes whole lots, oldest first, while their quantity fits in what it sells; a remainder
 * takes part of the next lot at floor(remaining cost × taken / remaining qty); a remainder with
 * no lot left is unmatched (zero cost).
 */
export function foldLegs(legs: readonly FoldLeg[], from: FoldState): { state: FoldState; sells: FoldSell[] } {
  let lots = from.lots
  const s = { ...from }
  const sells: FoldSell[] = []
  legs.forEach((leg, i) => {
    if (leg.side > 0) {
      lots = [...lots, { qty: leg.qty, cost: leg.cost, openedAt: leg.t }]
      s.spent += leg.cost
      return
    }
    let k = 0
    let rem = leg.qty
    let matched = 0n
    while (k < lots.length && lots[k]!.qty <= rem) {
      rem -= lots[k]!.qty
      matched += lots[k]!.cost
      k++
    }
    const closedHolds = lots.slice(0, k).map((l) => Math.max(0, leg.t - l.openedAt))
    const partial = rem > 0n && k < lots.length
    let unmatched = rem
    if (partial) {
      const lot = lots[k]!
      const taken = (lot.cost * rem) / lot.qty
      matched += taken
      lots = [{ qty: lot.qty - rem, cost: lot.cost - taken, openedAt: lot.openedAt }, ...lots.slice(k + 1)]
      unmatched = 0n
    } else {
      lots = lots.slice(k)
    }
    const realized = leg.cost - matched
    s.realized += realized
    s.sells += 1n
    if (realized > 0n) s.winningSells += 1n
    s.unmatchedQty += unmatched
    s.matchedCost += matched
    s.received += leg.cost
    sells.push({ leg: i + 1, matchedCost: matched, unmatchedQty: unmatched, realized, closedHolds })
  })
  return { state: { ...s, lots }, sells }
}

/** A stored state as the engine's JSON gives it (wide integers as strings). */
export function foldStateOf(json: FifoStateJson): FoldState {
  return {
    lots: json.lots.map((l) => ({ qty: BigInt(l.qty), cost: BigInt(l.cost), openedAt: Number(l.opened_at) })),
    realized: BigInt(json.realized),
    sells: BigInt(json.sells),
    winningSells: BigInt(json.winning_sells),
    unmatchedQty: BigInt(json.unmatched_qty),
    matchedCost: BigInt(json.matched_cost),
    spent: BigInt(json.spent),
    received: BigInt(json.received),
  }
}

/** A state as a JSONEachRow value of the `state` column (wide integers as decimal strings). */
export function foldStateJson(s: FoldState): FifoStateJson {
  return {
    lots: s.lots.map((l) => ({ qty: l.qty.toString(), cost: l.cost.toString(), opened_at: l.openedAt })),
    realized: s.realized.toString(),
    sells: s.sells.toString(),
    winning_sells: s.winningSells.toString(),
    unmatched_qty: s.unmatchedQty.toString(),
    matched_cost: s.matchedCost.toString(),
    spent: s.spent.toString(),
    received: s.received.toString(),
  }
}
