import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { FIFO_LEG_TYPE, FIFO_STATE_TYPE, fifoFold, fifoInitialState, fifoOpen } from '../../products/wallet/fifo-sql.ts'
import { migratedChDB } from '../setup/chdb.ts'
import { randomWei, refFold, seeded, type RefLeg, type RefSell, type RefState } from '../setup/fifo-reference.ts'
import { emptyFoldState, foldLegs, foldStateJson, foldStateOf, type FoldState } from '../../products/wallet/fifo-fold.ts'

let ch: ClickHouseClient
let close: () => Promise<void>

beforeAll(async () => {
  ;({ ch, close } = await migratedChDB())
  await ch.command({
    query: `CREATE TABLE fifo_core_legs (key String, idx UInt32, side Int8, qty Int256, cost Int256, t UInt32) ENGINE = MergeTree ORDER BY (key, idx)`,
  })
})
afterAll(async () => close?.())

/** Random legs of one key: buys, partial and full exits, re-entries, oversized and naked sells. */
function randomLegs(rnd: () => number, n: number): RefLeg[] {
  const legs: RefLeg[] = []
  let open = 0n
  let t = 1_700_000_000
  for (let i = 0; i < n; i++) {
    t += Math.floor(rnd() * 20_000)
    const r = rnd()
    const price = randomWei(rnd, 1n, 10n ** 9n)
    if (r < 0.45 || open === 0n && r < 0.6) {
      const qty = randomWei(rnd, 1n, 10n ** 24n)
      legs.push({ side: 1, qty, cost: (qty * price) / 10n ** 9n + BigInt(Math.floor(rnd() * 1000)), t })
      open += qty
      continue
    }
    let qty: bigint
    if (r < 0.7 && open > 1n) qty = 1n + randomWei(rnd, 0n, open - 1n) // partial exit
    else if (r < 0.85) qty = open > 0n ? open : randomWei(rnd, 1n, 10n ** 20n) // full exit (or naked sell)
    else qty = open + randomWei(rnd, 1n, 10n ** 22n) // more than is open: unmatched part
    const proceeds = rnd() < 0.05 ? 0n : (qty * price) / 10n ** 9n
    legs.push({ side: -1, qty, cost: proceeds, t })
    open = open > qty ? open - qty : 0n
  }
  return legs
}

interface FoldRow {
  key: string
  state: { lots: Array<{ qty: string; cost: string; opened_at: number }>; realized: string; sells: string; winning_sells: string; unmatched_qty: string; matched_cost: string; spent: string; received: string }
  sells: Array<{ leg: number; matched_cost: string; unmatched_qty: string; realized: string; closed_holds: number[] }>
  open_qty: string
  open_cost: string
}

function asRef(row: FoldRow): { state: RefState; sells: RefSell[] } {
  const s = row.state
  return {
    state: {
      lots: s.lots.map((l) => ({ qty: BigInt(l.qty), cost: BigInt(l.cost), openedAt: l.opened_at })),
      realized: BigInt(s.realized),
      sells: Number(s.sells),
      winningSells: Number(s.winning_sells),
      unmatchedQty: BigInt(s.unmatched_qty),
      matchedCost: BigInt(s.matched_cost),
      spent: BigInt(s.spent),
      received: BigInt(s.received),
    },
    sells: row.sells.map((x) => ({ leg: x.leg, matchedCost: BigInt(x.matched_cost), unmatchedQty: BigInt(x.unmatched_qty), realized: BigInt(x.realized), closedHolds: x.closed_holds })),
  }
}

const legArray = (where: string) =>
  `arrayMap(x -> CAST((x.2, x.3, x.4, x.5), '${FIFO_LEG_TYPE}'), arraySort(x -> x.1, groupArrayIf((idx, side, qty, cost, t), ${where})))`

describe('FIFO core (products/wallet/fifo-sql.ts) against an independent TypeScript FIFO', () => {
  const rnd = seeded(4663)
  const keys = Array.from({ length: 60 }, (_, i) => ({ key: `k${i}`, legs: randomLegs(rnd, 1 + Math.floor(rnd() * 80)) }))

  it('agrees to the wei on every key, every sell and every open lot', async () => {
    await ch.insert({
      table: 'fifo_core_legs',
      values: keys.flatMap(({ key, legs }) => legs.map((l, i) => ({ key, idx: i + 1, side: l.side, qty: l.qty.toString(), cost: l.cost.toString(), t: l.t }))),
      format: 'JSONEachRow',
    })
    const rows = await queryRows<FoldRow>(
      ch,
      `SELECT key, f.1 AS state, f.2 AS sells, ${fifoOpen('f.1').qty} AS open_qty, ${fifoOpen('f.1').cost} AS open_cost
       FROM (SELECT key, ${fifoFold(legArray('1'), fifoInitialState())} AS f FROM fifo_core_legs GROUP BY key)`,
    )
    expect(rows).toHaveLength(keys.length)
    const byKey = new Map(rows.map((r) => [r.key, r]))
    let partial = 0
    let unmatched = 0
    for (const { key, legs } of keys) {
      const want = refFold(legs)
      const got = byKey.get(key)!
      expect(asRef(got), key).toEqual(want)
      const openCost = want.state.lots.reduce((s, l) => s + l.cost, 0n)
      expect(BigInt(got.open_cost)).toBe(openCost)
      // The identity the receipt relies on: realized − open cost = received − spent.
      expect(want.state.realized - openCost).toBe(want.state.received - want.state.spent)
      partial += want.sells.filter((s) => s.closedHolds.length === 0 && s.unmatchedQty === 0n).length
      unmatched += want.sells.filter((s) => s.unmatchedQty > 0n).length
    }
    // The sequences exercise what they claim to.
    expect(partial).toBeGreaterThan(20)
    expect(unmatched).toBeGreaterThan(10)
  })

  it('folding the legs in two parts, the second from the first state, gives the same state', async () => {
    const rows = await queryRows<{ key: string; whole: string; split: string }>(
      ch,
      `SELECT key, toString(${fifoFold(legArray('1'), fifoInitialState())}.1) AS whole,
              toString(${fifoFold(legArray('idx > intDiv(n, 2)'), `CAST(${fifoFold(legArray('idx <= intDiv(n, 2)'), fifoInitialState())}.1, '${FIFO_STATE_TYPE}')`)}.1) AS split
       FROM (SELECT *, count() OVER (PARTITION BY key) AS n FROM fifo_core_legs) GROUP BY key`,
    )
    expect(rows).toHaveLength(keys.length)
    for (const r of rows) expect(r.split, r.key).toBe(r.whole)
  })
})

/** The processor's fold in the reference's terms (its counts are bigints, as the engine's UInt64). */
const refOfFold = ({ state, sells }: ReturnType<typeof foldLegs>): { state: RefState; sells: RefSell[] } => ({
  state: { ...state, sells: Number(state.sells), winningSells: Number(state.winningSells) },
  sells,
})

describe('the processor\'s FIFO fold (products/wallet/fifo-fold.ts), the live batches\' one', () => {
  const rnd = seeded(5042)
  const keys = Array.from({ length: 300 }, () => randomLegs(rnd, 1 + Math.floor(rnd() * 80)))

  it('agrees with the independent FIFO to the wei on every state and sell', () => {
    for (const legs of keys) expect(refOfFold(foldLegs(legs, emptyFoldState()))).toEqual(refFold(legs))
  })

  it('folding in two parts, the second from the first\'s state through its stored JSON, gives the whole fold\'s state', () => {
    for (const legs of keys) {
      const cut = Math.floor(legs.length / 2)
      const first = foldLegs(legs.slice(0, cut), emptyFoldState())
      const stored: FoldState = foldStateOf(foldStateJson(first.state))
      expect(foldLegs(legs.slice(cut), stored).state).toEqual(foldLegs(legs, emptyFoldState()).state)
    }
  })

  it('leaves the state it folds onto unchanged', () => {
    const legs = keys.find((l) => l.filter((x) => x.side === 1).length > 2 && l.some((x) => x.side === -1))!
    const from = foldLegs(legs, emptyFoldState()).state
    const copy = structuredClone(from)
    foldLegs(legs, from)
    expect(from).toEqual(copy)
  })
})
