/**
 * An independent FIFO, in plain TypeScript with bigint, written from the definitions (DESIGN §7,
 * issue 12) and nothing else: what the ClickHouse fold (products/wallet/fifo-sql.ts) is checked against.
 */
export interface RefLeg {
  side: 1 | -1
  qty: bigint
  cost: bigint
  t: number
}

/** A swap's leg for its sender, from the raw swap fields (tokens in more than out: a buy). */
export function refLegOfSwap(s: { token_in: string; token_out: string; weth_in: string; weth_out: string }, t: number): RefLeg {
  const [ti, to, wi, wo] = [BigInt(s.token_in), BigInt(s.token_out), BigInt(s.weth_in), BigInt(s.weth_out)]
  return to > ti ? { side: 1, qty: to - ti, cost: wi - wo, t } : { side: -1, qty: ti - to, cost: wo - wi, t }
}

/** The legs of swaps (in chain order) by `wallet/token`. */
export function refLegsByPair<S extends { trader: string; token: string; token_in: string; token_out: string; weth_in: string; weth_out: string }>(swaps: S[], timeOf: (s: S) => number): Map<string, RefLeg[]> {
  const legs = new Map<string, RefLeg[]>()
  for (const s of swaps) {
    const k = `${s.trader}/${s.token}`
    if (!legs.has(k)) legs.set(k, [])
    legs.get(k)!.push(refLegOfSwap(s, timeOf(s)))
  }
  return legs
}

export interface RefSell {
  /** 1-based index of the sell among the legs folded. */
  leg: number
  matchedCost: bigint
  unmatchedQty: bigint
  realized: bigint
  closedHolds: number[]
}

export interface RefState {
  lots: Array<{ qty: bigint; cost: bigint; openedAt: number }>
  realized: bigint
  sells: number
  winningSells: number
  unmatchedQty: bigint
  matchedCost: bigint
  spent: bigint
  received: bigint
}

export function refInitial(): RefState {
  return { lots: [], realized: 0n, sells: 0, winningSells: 0, unmatchedQty: 0n, matchedCost: 0n, spent: 0n, received: 0n }
}

/** Fold legs onto a state (copied, not changed); answers the new state and one entry per sell. */
export function refFold(legs: RefLeg[], from: RefState = refInitial()): { state: RefState; sells: RefSell[] } {
  const s: RefState = { ...from, lots: from.lots.map((l) => ({ ...l })) }
  const sells: RefSell[] = []
  legs.forEach((leg, i) => {
    if (leg.side === 1) {
      s.lots.push({ qty: leg.qty, cost: leg.cost, openedAt: leg.t })
      s.spent += leg.cost
      return
    }
    let want = leg.qty
    let matched = 0n
    const closedHolds: number[] = []
    while (want > 0n && s.lots.length > 0) {
      const lot = s.lots[0]!
      if (lot.qty <= want) {
        // The whole lot: all its remaining cost.
        matched += lot.cost
        want -= lot.qty
        closedHolds.push(Math.max(0, leg.t - lot.openedAt))
        s.lots.shift()
      } else {
        // Part of it: floor(remaining cost × taken / remaining qty), subtracted from the lot.
        const part = (lot.cost * want) / lot.qty
        matched += part
        lot.cost -= part
        lot.qty -= want
        want = 0n
      }
    }
    const realized = leg.cost - matched
    s.realized += realized
    s.sells += 1
    if (realized > 0n) s.winningSells += 1
    s.unmatchedQty += want
    s.matchedCost += matched
    s.received += leg.cost
    sells.push({ leg: i + 1, matchedCost: matched, unmatchedQty: want, realized, closedHolds })
  })
  return { state: s, sells }
}

/** A deterministic pseudo-random generator (mulberry32): reproducible randomized sequences. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A random wide amount in [lo, lo + span) (wei-sized: up to ~1e24). */
export function randomWei(rnd: () => number, lo: bigint, span: bigint): bigint {
  const r = BigInt(Math.floor(rnd() * 2 ** 30)) * BigInt(Math.floor(rnd() * 2 ** 30)) + BigInt(Math.floor(rnd() * 2 ** 30))
  return lo + (span > 0n ? r % span : 0n)
}

/** A wallet's receipt figures over its legs per token (each token's legs in leg order). */
export interface RefWalletFigures {
  realized: bigint
  openCost: bigint
  sells: number
  winningSells: number
  /** Sells with quantity not covered by lots. */
  unmatchedSells: number
  /** Every closed lot's hold, sorted. */
  holds: number[]
  /** The middle hold, or the mean of the middle two; null without one. */
  medianHold: number | null
}

/** Fold each token's legs from nothing and add the figures up. */
export function refWallet(legsByToken: Iterable<RefLeg[]>): RefWalletFigures {
  const f: RefWalletFigures = { realized: 0n, openCost: 0n, sells: 0, winningSells: 0, unmatchedSells: 0, holds: [], medianHold: null }
  for (const legs of legsByToken) {
    const { state, sells } = refFold(legs)
    f.realized += state.realized
    f.openCost += state.lots.reduce((s, l) => s + l.cost, 0n)
    f.sells += state.sells
    f.winningSells += state.winningSells
    f.unmatchedSells += sells.filter((s) => s.unmatchedQty > 0n).length
    f.holds.push(...sells.flatMap((s) => s.closedHolds))
  }
  const h = f.holds.sort((a, b) => a - b)
  f.medianHold = h.length === 0 ? null : h.length % 2 ? h[(h.length - 1) / 2]! : (h[h.length / 2 - 1]! + h[h.length / 2]!) / 2
  return f
}
