import { refFold, type RefLeg } from './fifo-reference.ts'
import type { ChainExpectations } from './chain-expectations.ts'

/** A trader's receipt figures as the test computes them from the chain's own swap events. */
export interface ExpectedReceipt {
  realized: bigint
  sells: number
  wins: number
  openCost: bigint
  spent: bigint
  received: bigint
  /** The same per token (and the quantity sold without an open lot). */
  perToken: Map<string, { realized: bigint; sells: number; wins: number; openCost: bigint; spent: bigint; received: bigint; unmatchedQty: bigint }>
}

/** Per trader and token, the FIFO of the chain's swap events (the test's own, from the definitions). */
export function receiptsFromChain(chain: ChainExpectations): Map<string, ExpectedReceipt> {
  const byTrader = new Map<string, Map<string, RefLeg[]>>()
  const flows = new Map<string, { spent: bigint; received: bigint }>()
  for (const s of chain.swaps) {
    const w = s.trader.toLowerCase()
    const t = s.token.toLowerCase()
    const leg: RefLeg = s.tokenOut > s.tokenIn ? { side: 1, qty: s.tokenOut - s.tokenIn, cost: s.wethIn - s.wethOut, t: 0 } : { side: -1, qty: s.tokenIn - s.tokenOut, cost: s.wethOut - s.wethIn, t: 0 }
    if (!byTrader.has(w)) byTrader.set(w, new Map())
    const m = byTrader.get(w)!
    if (!m.has(t)) m.set(t, [])
    m.get(t)!.push(leg)
    const f = flows.get(w) ?? { spent: 0n, received: 0n }
    if (leg.side === 1) f.spent += leg.cost
    else f.received += leg.cost
    flows.set(w, f)
  }
  const out = new Map<string, ExpectedReceipt>()
  for (const [w, tokens] of byTrader) {
    let realized = 0n
    let sells = 0
    let wins = 0
    let openCost = 0n
    const perToken: ExpectedReceipt['perToken'] = new Map()
    for (const [token, legs] of tokens) {
      const { state } = refFold(legs)
      const open = state.lots.reduce((a, l) => a + l.cost, 0n)
      realized += state.realized
      sells += state.sells
      wins += state.winningSells
      openCost += open
      perToken.set(token, { realized: state.realized, sells: state.sells, wins: state.winningSells, openCost: open, spent: state.spent, received: state.received, unmatchedQty: state.unmatchedQty })
    }
    out.set(w, { realized, sells, wins, openCost, ...flows.get(w)!, perToken })
  }
  return out
}
