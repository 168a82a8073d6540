/**
 * FIFO matching as ClickHouse SQL (DESIGN §4, §7): the fold of every bulk path (backfill batches,
 * rebuilds, refolds, the Solana venue). A live batch's few wallet-tokens are folded by the same
 * rules in the processor (fifo-fold.ts), and a test holds the two equal. Venue-neutral: it folds generic
 * legs (side, quantity, cost in the venue's smallest cost unit, time) onto a state carrying the
 * open lots and the running sums, so a caller keeps one state per wallet-token and folds only the
 * legs that arrived since (work proportional to change). Chain 4663 feeds it WETH-valued swap
 * legs (products/wallet/fifo-refresh.ts); the Solana venue feeds it its own legs.
 *
 * The rules, exactly:
 *  - a buy opens a lot (quantity, cost);
 *  - a sell consumes lots oldest first: a fully consumed lot gives its whole remaining cost, a
 *    partially consumed lot gives floor(remaining_cost × taken / remaining_qty), which is
 *    subtracted from the lot (cost is conserved exactly);
 *  - sell quantity not covered by lots has zero cost and is counted as unmatched;
 *  - a sell's realized result = proceeds − matched cost; a winning sell has realized > 0;
 *  - a lot is closed when a sell consumes its last unit; its hold is that sell's time − the lot's
 *    opening time.
 * Identity kept by the state: realized − open cost = received − spent.
 *
 * Quantities and costs are Int256 (exact); times are Unix seconds (UInt32).
 */

/** ClickHouse type of one leg fed to the fold: side 1 = buy, -1 = sell; qty and cost >= 0. */
export const FIFO_LEG_TYPE = 'Tuple(side Int8, qty Int256, cost Int256, t UInt32)'

/** An open lot: remaining quantity, remaining cost, opening time. */
export const FIFO_LOT_TYPE = 'Tuple(qty Int256, cost Int256, opened_at UInt32)'

/**
 * The state of one wallet-token after its legs so far: open lots (oldest first) and sums.
 * `matched_cost` is the cost given up by sells; `spent` the cost of all buys, `received` the
 * proceeds of all sells (so realized = received − matched_cost and spent = matched_cost + open cost).
 */
export const FIFO_STATE_TYPE =
  `Tuple(lots Array(${FIFO_LOT_TYPE}), realized Int256, sells UInt64, winning_sells UInt64, ` +
  'unmatched_qty Int256, matched_cost Int256, spent Int256, received Int256)'

/**
 * What the fold says about each sell leg it consumed: `leg` is the 1-based index of the sell in
 * the folded legs array (join back to the caller's own leg ids), `closed_holds` the hold seconds
 * of the lots the sell closed.
 */
export const FIFO_SELL_TYPE = 'Tuple(leg UInt32, matched_cost Int256, unmatched_qty Int256, realized Int256, closed_holds Array(UInt32))'

/** Result type of fifoFold: the new state and one entry per sell leg of the fold. */
export const FIFO_FOLD_TYPE = `Tuple(state ${FIFO_STATE_TYPE}, sells Array(${FIFO_SELL_TYPE}))`

/** Element positions of FIFO_STATE_TYPE, for `tupleElement(state, n)` or `state.n` in SQL. */
export const FIFO_STATE = { lots: 1, realized: 2, sells: 3, winningSells: 4, unmatchedQty: 5, matchedCost: 6, spent: 7, received: 8 } as const

/** The state of a wallet-token with no legs, as a SQL expression. */
export function fifoInitialState(): string {
  return `CAST(([], 0, 0, 0, 0, 0, 0, 0), '${FIFO_STATE_TYPE}')`
}

/**
 * `body` with `name` bound to `value`, computed once: a lambda over a one-element array. The
 * sell step names each intermediate this way instead of repeating its text: ClickHouse's analyzer
 * resolves every textual copy of a lambda on its own, and the fold written with repeated
 * subexpressions took 85-135 ms to plan on every statement (15 ms bound, the same results).
 */
const bind = (name: string, value: string, body: string) => `arrayMap(${name} -> ${body}, [${value}])[1]`

/**
 * One sell of quantity `q`, proceeds `w`, at time `t`, on state `s`, leg index `i`: the new
 * (state, sells) pair. cum = the lots' cumulative quantities; k = lots fully consumed (their
 * cumulative quantity fits in q); rem = quantity left after them; partial = rem takes part of lot
 * k + 1, pc = the cost it takes; matched = the cost the sell gives up.
 */
function sellStep(s: string, outs: string, q: string, w: string, t: string, i: string): string {
  const lots = `${s}.1`
  const p = `arrayElement(${lots}, k + 1)`
  const newLots = `if(partial, arrayPushFront(arraySlice(${lots}, k + 2), (${p}.1 - rem, ${p}.2 - pc, ${p}.3)), arraySlice(${lots}, k + 1))`
  const holds = `arrayMap(l -> toUInt32(greatest(toInt64(${t}) - toInt64(l.3), 0)), arraySlice(${lots}, 1, k))`
  const result = `((${newLots}, ${s}.2 + realized, ${s}.3 + 1, ${s}.4 + if(realized > 0, 1, 0), ${s}.5 + unmatched, ${s}.6 + matched, ${s}.7, ${s}.8 + ${w}),
    arrayPushBack(${outs}, (${i}, matched, unmatched, realized, ${holds})))`
  return bind('cum', `arrayCumSum(arrayMap(l -> l.1, ${lots}))`,
    bind('k', `toUInt32(arrayCount(c -> c <= ${q}, cum))`,
      bind('rem', `(${q} - toInt256(arrayElement(cum, k)))`,
        bind('partial', `(rem > 0 AND k < length(${lots}))`,
          bind('pc', `if(partial, intDivOrZero(${p}.2 * rem, ${p}.1), toInt256(0))`,
            bind('matched', `(toInt256(arraySum(arrayMap(l -> l.2, arraySlice(${lots}, 1, k)))) + pc)`,
              bind('unmatched', `if(partial, toInt256(0), rem)`,
                bind('realized', `(${w} - matched)`, result))))))))
}

/**
 * The FIFO fold as a SQL expression of type FIFO_FOLD_TYPE. The step's one CAST (to the
 * accumulator's type) types both branches: a CAST of each branch's state and sell as well added
 * nothing but text for the analyzer, which plans this expression on every statement at a cost
 * that grows with its length. `legs` is an expression of type
 * Array(FIFO_LEG_TYPE) in leg order (time, then position within the block or slot); `state` an
 * expression of type FIFO_STATE_TYPE (a stored state, or fifoInitialState()). Folding legs in
 * two calls, the second starting from the first's state, gives the same state as one call.
 */
export function fifoFold(legs: string, state: string): string {
  const buy = `((arrayPushBack(acc.1.1, (leg.2, leg.3, leg.4)), acc.1.2, acc.1.3, acc.1.4, acc.1.5, acc.1.6, acc.1.7 + leg.3, acc.1.8), acc.2)`
  const sell = sellStep('acc.1', 'acc.2', 'leg.2', 'leg.3', 'leg.4', 'i')
  return `arrayFold((acc, leg, i) -> CAST(if(leg.1 > 0, ${buy}, ${sell}), '${FIFO_FOLD_TYPE}'),
    CAST(${legs}, 'Array(${FIFO_LEG_TYPE})'), arrayEnumerate(${legs}),
    CAST((${state}, []), '${FIFO_FOLD_TYPE}'))`
}

/** Open quantity and open cost of a state expression, as SQL expressions. */
export function fifoOpen(state: string): { qty: string; cost: string } {
  return {
    qty: `toInt256(arraySum(arrayMap(l -> l.1, ${state}.1)))`,
    cost: `toInt256(arraySum(arrayMap(l -> l.2, ${state}.1)))`,
  }
}

/** A state as JSON gives it, out and in (named tuples as objects, wide integers as decimal strings). */
export interface FifoStateJson {
  lots: Array<{ qty: string; cost: string; opened_at: number }>
  realized: string
  sells: string
  winning_sells: string
  unmatched_qty: string
  matched_cost: string
  spent: string
  received: string
}
