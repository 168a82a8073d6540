import { createHash } from 'node:crypto'
import { SOL_CANDLE_SECONDS, type SolanaTrade, type SolanaUniverseMember, type SolUsdCandle } from '../records/solana.ts'
import { base58 } from './base58.ts'
import { DEFAULT_START_TIME } from './chain-sim.ts'
import { createPriceSimulator, type PriceSimulator } from './price-sim.ts'
import { createRng, type Rng } from './prng.ts'

/**
 * The simulated Solana venue: a universe of wallets trading a few hundred mints against SOL or
 * USD (USDC), and the 5-minute SOL/USD candles. Deterministic: each wallet draws from its own
 * seeded generator, so its n-th trade is fixed by (seed, wallet, n) whatever happens to the
 * others, and prices are pure functions of (seed, time) (price-sim.ts). The venue's trades are
 * the wallets' streams merged by time.
 *
 * A wallet trades in episodes on one mint: one to three buys, then one to three sells, the last
 * a full exit two times in three (otherwise the position stays partly open into a later episode
 * of that mint); about one episode in 30 starts with a sell of more than the wallet bought
 * (tokens that came in without a trade: an unmatched sell). Its style sets the gaps inside an
 * episode: scalpers minutes, swing traders hours to days, holders weeks. About 70% of trades
 * are quoted in SOL, the rest in USD.
 *
 * At the defaults (45,504 wallets) the venue trades about 1.7 times per second of venue time;
 * `SOLANA_SIM_TRADES_PER_SECOND` caps how fast the source publishes that history.
 */

export const SOLANA_UNIVERSE_SIZE = 45_504
export const SOLANA_SIM_VENUE = 'sim-dex'
/** Slot of DEFAULT_START_TIME; slots advance 2.5 per second (400 ms slots). */
const SLOT_ZERO = 310_000_000

export type TradingStyle = 'scalper' | 'swing' | 'holder'

export interface SolanaSimOptions {
  seed: number | string
  /** Unix second at which every wallet is listed; trades start after it. */
  genesis: number
  wallets?: number
  mints?: number
}

export interface SolanaSim {
  readonly genesis: number
  readonly size: number
  /** Address of wallet `i`. */
  wallet(i: number): string
  style(i: number): TradingStyle
  /** The universe, as membership records. */
  universe(): SolanaUniverseMember[]
  /**
   * Skip what is stored: each wallet's trades at or before `lastTrade(wallet)` are generated
   * (its positions follow) but not returned again. Call once, before the first `take`.
   */
  resume(lastTrade: (wallet: string) => number | undefined): void
  /** The same, in slices that leave the event loop free in between (a process serving requests meanwhile). */
  resumeGently(lastTrade?: (wallet: string) => number | undefined): Promise<void>
  /** Block time of the next trade. */
  clock(): number
  /** Up to `max` next trades with block_time <= `until`, in (time, wallet) order. */
  take(until: number, max: number): SolanaTrade[]
  /** The candle of the window starting at `start` (a multiple of 300). */
  candle(start: number): SolUsdCandle
}

interface Planned {
  side: 'buy' | 'sell'
  /** Buy: USD notional. Sell: fraction of the holding (above 1: more than held). */
  size: number
}

interface Cursor {
  index: number
  address: string
  style: TradingStyle
  rng: Rng
  favorites: number[]
  /** Trades emitted so far (numbers the signatures). */
  n: number
  time: number
  mint: number
  plan: Planned[]
  positions: Map<number, bigint>
  /** The next trade, prepared (null: not yet drawn). */
  next: SolanaTrade | null
}

const TOKEN_UNIT = 1_000_000 // 6-decimal mints

export function createSolanaSim(opts: SolanaSimOptions): SolanaSim {
  const size = opts.wallets ?? SOLANA_UNIVERSE_SIZE
  const mintCount = Math.min(opts.mints ?? 300, 1023)
  const seed = String(opts.seed)
  const genesis = opts.genesis
  const sol: PriceSimulator = createPriceSimulator({ seed, pair: 'SOL/USD', startPrice: 190, volatility: 0.8 })
  const mintRng = createRng(`solana-sim/mints/${seed}`)
  const mints = Array.from({ length: mintCount }, (_, j) => ({
    address: base58(createHash('sha256').update(`solana-sim/mint/${seed}/${j}`).digest()),
    scale: mintRng.logRange(1e-5, 2),
    price: createPriceSimulator({ seed: `${seed}/mint/${j}`, pair: 'SOL/USD', startPrice: 1, volatility: 4 }),
  }))

  // Trades are priced at the open of their 5-minute window (SOL and token alike), cached: a
  // price lookup descends the 26 levels of a Brownian path.
  const prices = new Map<number, number>()
  const priced = (key: number, compute: () => number) => {
    let v = prices.get(key)
    if (v === undefined) {
      if (prices.size >= 200_000) prices.clear()
      v = compute()
      prices.set(key, v)
    }
    return v
  }
  const windowOf = (t: number) => t - (t % SOL_CANDLE_SECONDS)
  const solUsd = (t: number) => priced((windowOf(t) / SOL_CANDLE_SECONDS) * 1024 + 1023, () => Number(sol.candleAt(windowOf(t)).open))
  const tokenUsd = (j: number, t: number) => priced((windowOf(t) / SOL_CANDLE_SECONDS) * 1024 + j, () => mints[j]!.scale * Number(mints[j]!.price.candleAt(windowOf(t)).open))

  const addressOf = (i: number) => base58(createHash('sha256').update(`solana-sim/wallet/${seed}/${i}`).digest())

  const cursors: Cursor[] = []
  for (let i = 0; i < size; i++) {
    const rng = createRng(`solana-sim/wallet/${seed}/${i}`)
    const u = rng.float()
    const style: TradingStyle = u < 0.3 ? 'scalper' : u < 0.8 ? 'swing' : 'holder'
    const favorites = Array.from({ length: 4 }, () => rng.int(mintCount))
    const c: Cursor = {
      index: i, address: addressOf(i), style, rng, favorites, n: 0,
      // Wallets start at different times over the first two days.
      time: genesis + 1 + rng.int(2 * 86_400), mint: 0, plan: [], positions: new Map(), next: null,
    }
    cursors.push(c)
  }

  function gap(c: Cursor): number {
    const r = c.rng
    if (c.style === 'scalper') return r.logRange(20, 3_000)
    if (c.style === 'swing') return r.logRange(3_600, 3 * 86_400)
    return r.logRange(7 * 86_400, 45 * 86_400)
  }

  function planEpisode(c: Cursor): void {
    const r = c.rng
    c.mint = r.chance(0.6) ? c.favorites[r.int(c.favorites.length)]! : r.int(mintCount)
    c.plan = []
    if (r.chance(1 / 30)) c.plan.push({ side: 'sell', size: r.range(1.1, 2) })
    const buys = 1 + r.int(3)
    for (let k = 0; k < buys; k++) c.plan.push({ side: 'buy', size: r.logRange(20, 5_000) })
    const sells = 1 + r.int(3)
    for (let k = 0; k < sells; k++) c.plan.push({ side: 'sell', size: k === sells - 1 && r.chance(2 / 3) ? 1 : r.range(0.15, 0.8) })
    // Idle time before the episode.
    c.time += Math.max(1, Math.round(r.logRange(600, 3 * 86_400)))
  }

  /** Draw the cursor's next trade into `c.next`. */
  function draw(c: Cursor): void {
    for (;;) {
      if (c.plan.length === 0) planEpisode(c)
      else c.time += Math.max(1, Math.round(gap(c)))
      const p = c.plan.shift()!
      const r = c.rng
      const t = c.time
      const price = tokenUsd(c.mint, t)
      // A mint whose walk fell below the price's 8 decimals is priced 0: nobody trades it then
      // (a size over a zero price is no quantity). Its walk may come back.
      if (!(price > 0)) continue
      const held = c.positions.get(c.mint) ?? 0n
      let qty: bigint
      if (p.side === 'buy') qty = BigInt(Math.floor((p.size / price) * TOKEN_UNIT))
      else if (p.size > 1) qty = held + BigInt(Math.floor((r.logRange(20, 2_000) / price) * TOKEN_UNIT))
      else qty = p.size === 1 ? held : BigInt(Math.floor(Number(held) * p.size))
      const usd = (Number(qty) / TOKEN_UNIT) * price
      const inSol = r.chance(0.7)
      if (qty <= 0n) continue
      c.positions.set(c.mint, p.side === 'buy' ? held + qty : held > qty ? held - qty : 0n)
      const n = c.n++
      c.next = {
        signature: base58(createHash('sha512').update(`solana-sim/tx/${seed}/${c.index}/${n}`).digest()),
        slot: SLOT_ZERO + Math.floor((t - DEFAULT_START_TIME) * 2.5),
        block_time: t,
        wallet: c.address,
        mint: mints[c.mint]!.address,
        side: p.side,
        token_qty: qty.toString(),
        quote: inSol ? 'SOL' : 'USD',
        quote_amount: inSol ? BigInt(Math.floor((usd / solUsd(t)) * 1e9)).toString() : BigInt(Math.floor(usd * 1e6)).toString(),
      }
      return
    }
  }

  // A binary min-heap of cursors by (next trade time, wallet index).
  const heap: Cursor[] = []
  const before = (a: Cursor, b: Cursor) => a.next!.block_time < b.next!.block_time || (a.next!.block_time === b.next!.block_time && a.index < b.index)
  function push(c: Cursor): void {
    heap.push(c)
    let i = heap.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!before(heap[i]!, heap[p]!)) break
      ;[heap[i], heap[p]] = [heap[p]!, heap[i]!]
      i = p
    }
  }
  function pop(): Cursor {
    const top = heap[0]!
    const last = heap.pop()!
    if (heap.length > 0) {
      heap[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const rr = l + 1
        let m = i
        if (l < heap.length && before(heap[l]!, heap[m]!)) m = l
        if (rr < heap.length && before(heap[rr]!, heap[m]!)) m = rr
        if (m === i) break
        ;[heap[i], heap[m]] = [heap[m]!, heap[i]!]
        i = m
      }
    }
    return top
  }

  let started = false
  /** Draw every wallet's first trade (after `lastTrade`), yielding after each `slice` wallets. */
  function* starting(lastTrade: ((wallet: string) => number | undefined) | undefined, slice: number): Generator<void> {
    if (started) return
    started = true
    for (const c of cursors) {
      const last = lastTrade?.(c.address)
      draw(c)
      if (last !== undefined) while (c.next!.block_time <= last) draw(c)
      push(c)
      if (c.index % slice === slice - 1) yield
    }
  }
  const start = (lastTrade?: (wallet: string) => number | undefined) => {
    for (const _ of starting(lastTrade, size)) void _
  }

  return {
    genesis,
    size,
    wallet: (i) => cursors[i]!.address,
    style: (i) => cursors[i]!.style,
    universe: () => cursors.map((c) => ({ wallet: c.address, venue: SOLANA_SIM_VENUE, listed_at: genesis })),
    resume(lastTrade) {
      if (started) throw new Error('resume() must come before the first take()')
      start(lastTrade)
    },
    async resumeGently(lastTrade) {
      if (started) throw new Error('resumeGently() must come before the first take()')
      for (const _ of starting(lastTrade, 500)) await new Promise<void>((r) => setImmediate(r))
    },
    clock() {
      start()
      return heap[0]!.next!.block_time
    },
    take(until, max) {
      start()
      const out: SolanaTrade[] = []
      while (out.length < max && heap[0]!.next!.block_time <= until) {
        const c = pop()
        out.push(c.next!)
        draw(c)
        push(c)
      }
      return out
    },
    candle(start) {
      if (start % SOL_CANDLE_SECONDS !== 0) throw new RangeError(`candle start must be a multiple of ${SOL_CANDLE_SECONDS}, got ${start}`)
      const minutes = Array.from({ length: SOL_CANDLE_SECONDS / 60 }, (_, k) => sol.candleAt(start + k * 60))
      const byValue = (pick: (a: number, b: number) => boolean) => (a: string, b: string) => (pick(Number(a), Number(b)) ? a : b)
      return {
        pair: 'SOL/USD',
        start,
        open: minutes[0]!.open,
        high: minutes.map((m) => m.high).reduce(byValue((a, b) => a >= b)),
        low: minutes.map((m) => m.low).reduce(byValue((a, b) => a <= b)),
        close: minutes[minutes.length - 1]!.close,
      }
    },
  }
}
