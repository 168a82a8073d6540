import { describe, expect, it } from 'vitest'
import { decodeLog } from '../../pipelines/decode/index.ts'
import type { DecodedEvent } from '../../pipelines/decode/types.ts'
import type { ChainBlock } from '../../pipelines/records/chain-block.ts'
import { PriceCandle } from '../../pipelines/records/price.ts'
import { afterFee, concentratedOut, MAX_TICK, MIN_TICK, sqrtPriceX96, tickOf } from '../../pipelines/sim/amm.ts'
import { createChainSimulator } from '../../pipelines/sim/chain-sim.ts'
import {
  SIM_4663_V3_FACTORY,
  SIM_4663_V3_POSITION_MANAGER,
  SIM_4663_V3_ROUTER,
  SIM_4663_V4_POOL_MANAGER,
  SIM_4663_V4_POSITION_MANAGER,
  SIM_4663_V4_ROUTER,
  SIM_4663_WETH,
  simContracts,
  UNISWAP_V3_POOL_INIT_CODE_HASH,
  ZERO_ADDRESS,
} from '../../pipelines/sim/contracts.ts'
import { createPriceSimulator } from '../../pipelines/sim/price-sim.ts'

const WEI = 10n ** 18n

function run(seed: number | string, blocks: number): ChainBlock[] {
  const sim = createChainSimulator({ chainId: 4663, seed })
  return Array.from({ length: blocks }, () => sim.nextBlock())
}

interface Item {
  block: number
  /** Position in the chain: block * 1e6 + log index. */
  at: number
  txHash: string
  txFrom: string
  e: DecodedEvent
}

// One history shared by the checks below; every log decoded once.
const HISTORY = run(11, 6000)
const ITEMS: Item[] = HISTORY.flatMap((b) =>
  b.logs.map((l) => ({ block: b.number, at: b.number * 1e6 + l.logIndex, txHash: l.txHash, txFrom: l.txFrom, e: decodeLog(l)! })),
)
const END = HISTORY[HISTORY.length - 1].number

/** Each launched token's pool, whichever venue: the key its swaps carry (pair, pool or v4 id). */
interface Listing {
  token: string
  venue: 'v2' | 'v3' | 'v4'
  key: string
  openedAt: number
  fee: number
  tokenIs0: boolean
}
const LISTINGS = new Map<string, Listing>() // by key
const LISTING_OF_TOKEN = new Map<string, Listing>()
for (const { e, at } of ITEMS) {
  let l: Listing | null = null
  if (e.type === 'v2_pair_created') l = { token: e.token0 === SIM_4663_WETH ? e.token1 : e.token0, venue: 'v2', key: e.pair, openedAt: at, fee: 3000, tokenIs0: e.token1 === SIM_4663_WETH }
  if (e.type === 'v3_pool_created') l = { token: e.token0 === SIM_4663_WETH ? e.token1 : e.token0, venue: 'v3', key: e.pool, openedAt: at, fee: e.fee, tokenIs0: e.token1 === SIM_4663_WETH }
  if (e.type === 'v4_initialize') l = { token: e.currency0 === SIM_4663_WETH ? e.currency1 : e.currency0, venue: 'v4', key: e.poolId, openedAt: at, fee: e.fee, tokenIs0: e.currency1 === SIM_4663_WETH }
  if (l !== null) {
    LISTINGS.set(l.key, l)
    LISTING_OF_TOKEN.set(l.token, l)
  }
}

/** The listing a swap trades on and its WETH volume (in plus out), or null for a non-swap. */
function swapOf(e: DecodedEvent): { listing: Listing; weth: bigint } | null {
  const abs = (v: bigint) => (v < 0n ? -v : v)
  if (e.type === 'v2_swap') {
    const l = LISTINGS.get(e.address)!
    return { listing: l, weth: l.tokenIs0 ? e.amount1In + e.amount1Out : e.amount0In + e.amount0Out }
  }
  if (e.type === 'v3_swap') {
    const l = LISTINGS.get(e.address)!
    return { listing: l, weth: abs(l.tokenIs0 ? e.amount1 : e.amount0) }
  }
  if (e.type === 'v4_swap') {
    const l = LISTINGS.get(e.poolId)!
    return { listing: l, weth: abs(l.tokenIs0 ? e.amount1 : e.amount0) }
  }
  return null
}

describe('createChainSimulator() on Uniswap v2, v3 and v4', () => {
  it('createChainSimulator() exports the chain 4663 v3 and v4 contracts it uses', () => {
    const c = simContracts(4663)
    expect(SIM_4663_V3_FACTORY).toBe(c.v3Factories[0])
    expect(SIM_4663_V3_ROUTER).toBe(c.v3Routers[0])
    expect(SIM_4663_V3_POSITION_MANAGER).toBe(c.v3PositionManagers[0])
    expect(SIM_4663_V4_POOL_MANAGER).toBe(c.v4PoolManagers[0])
    expect(SIM_4663_V4_ROUTER).toBe(c.v4Routers[0])
    expect(SIM_4663_V4_POSITION_MANAGER).toBe(c.v4PositionManagers[0])
    expect(c.v3PoolInitCodeHash).toBe(UNISWAP_V3_POOL_INIT_CODE_HASH)
    expect(simContracts(5042).v4PoolManagers[0]).not.toBe(SIM_4663_V4_POOL_MANAGER)
  })

  it('createChainSimulator() is byte-identical for a seed across v3 and v4 activity too', () => {
    const a = run('venues', 1200)
    const types = new Set(a.flatMap((b) => b.logs.map((l) => decodeLog(l)!.type)))
    expect(types).toContain('v3_swap')
    expect(types).toContain('v4_swap')
    expect(JSON.stringify(run('venues', 1200))).toBe(JSON.stringify(a))
  })

  it('createChainSimulator() emits only decodable logs, with v3 and v4 events of every kind, most launches on v2', () => {
    const bad = ITEMS.filter((i) => i.e === null || i.e.type === 'malformed').slice(0, 5)
    expect(bad).toEqual([])
    const count = new Map<string, number>()
    for (const { e } of ITEMS) count.set(e.type, (count.get(e.type) ?? 0) + 1)
    for (const t of ['v3_pool_created', 'v3_mint', 'v3_burn', 'v4_initialize', 'v4_modify_liquidity']) expect(count.get(t), t).toBeGreaterThan(5)
    for (const t of ['v3_swap', 'v4_swap']) expect(count.get(t), t).toBeGreaterThan(1000)
    const venues = [...LISTINGS.values()].map((l) => l.venue)
    const v2 = venues.filter((v) => v === 'v2').length
    expect(v2 / venues.length).toBeGreaterThan(0.5)
    for (const { e } of ITEMS) {
      if (e.type === 'v3_pool_created') expect(e.address).toBe(SIM_4663_V3_FACTORY)
      if (e.type === 'v4_initialize') {
        expect(e.address).toBe(SIM_4663_V4_POOL_MANAGER)
        // Paired with WETH, not native ETH: every venue is valued in WETH.
        expect(e.currency0 === SIM_4663_WETH || e.currency1 === SIM_4663_WETH).toBe(true)
        expect(e.currency0 < e.currency1).toBe(true)
        expect(e.hooks).toBe(ZERO_ADDRESS)
      }
    }
  })

  it('createChainSimulator() keeps v3 and v4 pools consistent: signed amounts, transfers, sqrt price, tick and liquidity follow the reserves', () => {
    const problems: string[] = []
    const check = (ok: boolean, what: string) => ok || problems.push(what)
    const state = new Map<string, { r0: bigint; r1: bigint; L: bigint }>()
    const transfersOf = (i: number) => [ITEMS[i + 1], ITEMS[i + 2]].map((x) => (x.e.type === 'erc20_transfer' && x.txHash === ITEMS[i].txHash ? x.e : null))
    let swaps = 0
    ITEMS.forEach(({ e, block }, i) => {
      const at = `block ${block} log ${i}: ${e.type}`
      if (e.type === 'v3_pool_created') state.set(e.pool, { r0: 0n, r1: 0n, L: 0n })
      if (e.type === 'v4_initialize') {
        state.set(e.poolId, { r0: 0n, r1: 0n, L: 0n })
        // The first ModifyLiquidity and its transfers follow in the same transaction.
        const [t0, t1] = transfersOf(i + 1)
        check(t0 !== null && t1 !== null && e.sqrtPriceX96 === sqrtPriceX96(t0.value, t1.value), `${at}: initial price`)
        check(e.tick === tickOf(e.sqrtPriceX96), `${at}: initial tick`)
      }
      if (e.type === 'v3_mint' || e.type === 'v3_burn') {
        const s = state.get(e.address)!
        const sign = e.type === 'v3_mint' ? 1n : -1n
        s.r0 += sign * e.amount0
        s.r1 += sign * e.amount1
        s.L += sign * e.amount
        check(e.amount > 0n && e.tickLower < 0 && e.tickUpper === -e.tickLower, `${at}: full-range position`)
        check(e.owner === SIM_4663_V3_POSITION_MANAGER, `${at}: owner`)
      }
      if (e.type === 'v4_modify_liquidity') {
        const s = state.get(e.poolId)!
        const [t0, t1] = transfersOf(i)
        if (t0 === null || t1 === null) return void problems.push(`${at}: no transfers`)
        const adds = e.liquidityDelta > 0n
        check(adds ? t0.to === SIM_4663_V4_POOL_MANAGER : t0.from === SIM_4663_V4_POOL_MANAGER, `${at}: transfer direction`)
        s.r0 += adds ? t0.value : -t0.value
        s.r1 += adds ? t1.value : -t1.value
        s.L += e.liquidityDelta
        check(e.sender === SIM_4663_V4_POSITION_MANAGER && e.tickUpper === -e.tickLower, `${at}: sender, range`)
      }
      if (e.type !== 'v3_swap' && e.type !== 'v4_swap') return
      swaps++
      const key = e.type === 'v3_swap' ? e.address : e.poolId
      const s = state.get(key)!
      const fee = LISTINGS.get(key)!.fee
      // As pool deltas: v3 emits them so; v4 emits the swapper's, the opposite sign.
      const [d0, d1] = e.type === 'v3_swap' ? [e.amount0, e.amount1] : [-e.amount0, -e.amount1]
      if (!((d0 > 0n && d1 < 0n) || (d0 < 0n && d1 > 0n))) return void problems.push(`${at}: amounts ${d0} ${d1}`)
      const zeroIn = d0 > 0n
      const [amountIn, amountOut] = zeroIn ? [d0, -d1] : [d1, -d0]
      const [rIn, rOut] = zeroIn ? [s.r0, s.r1] : [s.r1, s.r0]
      check(amountOut === concentratedOut(amountIn, fee, rIn, rOut), `${at}: output is not the curve's`)
      const sqrtBefore = Number(sqrtPriceX96(s.r0, s.r1))
      if (zeroIn) {
        s.r0 += afterFee(amountIn, fee)
        s.r1 -= amountOut
      } else {
        s.r1 += afterFee(amountIn, fee)
        s.r0 -= amountOut
      }
      check(e.sqrtPriceX96 === sqrtPriceX96(s.r0, s.r1), `${at}: sqrtPriceX96`)
      check(e.liquidity === s.L, `${at}: liquidity ${e.liquidity} != ${s.L}`)
      check(e.tick === tickOf(e.sqrtPriceX96) && e.tick > MIN_TICK && e.tick < MAX_TICK, `${at}: tick`)
      check(zeroIn ? e.sqrtPriceX96 < sqrtBefore : e.sqrtPriceX96 > sqrtBefore, `${at}: price moved the wrong way`)
      // Concentrated-liquidity math, independent of our reserves: token1 moves by L * d(sqrtP).
      const d1Curve = Number(zeroIn ? -amountOut : afterFee(amountIn, fee))
      const predicted = (Number(e.liquidity) * (Number(e.sqrtPriceX96) - sqrtBefore)) / 2 ** 96
      check(Math.abs(predicted - d1Curve) <= 1e-6 * Math.abs(d1Curve) + 2, `${at}: L * dSqrtP ${predicted} != ${d1Curve}`)
      // Its token transfers carry the same amounts.
      const near = ITEMS.slice(Math.max(0, i - 2), i + 3).filter((x) => x.txHash === ITEMS[i].txHash && x.e.type === 'erc20_transfer')
      const values = near.map((x) => (x.e as { value: bigint }).value)
      check(values.includes(amountIn) && values.includes(amountOut), `${at}: transfers`)
      const sender = e.type === 'v3_swap' ? SIM_4663_V3_ROUTER : SIM_4663_V4_ROUTER
      check(e.sender === sender && ITEMS[i].txFrom !== sender, `${at}: sender is the router, the trader is txFrom`)
    })
    expect(problems.slice(0, 10)).toEqual([])
    expect(swaps).toBeGreaterThan(2000)
  })

  it('createChainSimulator() rugs remove more than 90% of a pool\'s liquidity on every venue, and the token trades no more', () => {
    const L = new Map<string, bigint>()
    const lastSync = new Map<string, [bigint, bigint]>()
    const rugs: { venue: string; key: string; at: number }[] = []
    const partial: number[] = []
    ITEMS.forEach(({ e, at }) => {
      let key: string | null = null
      let removed = 0
      if (e.type === 'v2_sync') lastSync.set(e.address, [e.reserve0, e.reserve1])
      if (e.type === 'v2_burn') {
        // The pair's Sync (after the burn) comes right before Burn: before = after + amount.
        const [r0] = lastSync.get(e.address)!
        key = e.address
        removed = Number(e.amount0) / Number(r0 + e.amount0)
      }
      if (e.type === 'v3_mint') L.set(e.address, (L.get(e.address) ?? 0n) + e.amount)
      if (e.type === 'v4_modify_liquidity' && e.liquidityDelta > 0n) L.set(e.poolId, (L.get(e.poolId) ?? 0n) + e.liquidityDelta)
      if (e.type === 'v3_burn' || (e.type === 'v4_modify_liquidity' && e.liquidityDelta < 0n)) {
        key = e.type === 'v3_burn' ? e.address : e.poolId
        const amount = e.type === 'v3_burn' ? e.amount : -e.liquidityDelta
        const before = L.get(key)!
        removed = Number(amount) / Number(before)
        L.set(key, before - amount)
      }
      if (key === null) return
      if (removed > 0.9) rugs.push({ venue: LISTINGS.get(key)!.venue, key, at })
      else partial.push(removed)
    })
    for (const venue of ['v2', 'v3', 'v4']) expect(rugs.filter((r) => r.venue === venue).length, venue).toBeGreaterThan(0)
    expect(rugs.length).toBeGreaterThan(20)
    // Partial pulls exist too, so the 90% line separates something.
    expect(partial.length).toBeGreaterThan(3)
    const rugAt = new Map(rugs.map((r) => [r.key, r.at]))
    const after = ITEMS.filter(({ e, at }) => {
      const s = swapOf(e)
      return s !== null && rugAt.has(s.listing.key) && at > rugAt.get(s.listing.key)!
    })
    expect(after.length).toBe(0)
  })

  it('createChainSimulator() gives insiders off-market supply before the pool opens, ahead of any swap, and they sell later', () => {
    const deployerOf = new Map(HISTORY.flatMap((b) => b.creations.map((c) => [c.address, c.deployer] as const)))
    const insiders = new Map<string, { wallet: string; at: number }[]>() // token -> its insider transfers
    for (const { e, at, txFrom } of ITEMS) {
      if (e.type !== 'erc20_transfer') continue
      const deployer = deployerOf.get(e.address)
      const listing = LISTING_OF_TOKEN.get(e.address)
      if (deployer === undefined || listing === undefined || e.from !== deployer || txFrom !== deployer || at > listing.openedAt) continue
      const list = insiders.get(e.address) ?? []
      list.push({ wallet: e.to, at })
      insiders.set(e.address, list)
    }
    expect(insiders.size).toBeGreaterThan(30)
    const firstSwap = new Map<string, number>()
    const sellers = new Map<string, Set<string>>()
    for (const { e, at, txFrom } of ITEMS) {
      const s = swapOf(e)
      if (s === null) continue
      if (!firstSwap.has(s.listing.token)) firstSwap.set(s.listing.token, at)
      const set = sellers.get(s.listing.token) ?? new Set()
      set.add(txFrom)
      sellers.set(s.listing.token, set)
    }
    let wallets = 0
    let sold = 0
    for (const [token, list] of insiders) {
      for (const x of list) {
        expect(x.at).toBeLessThan(firstSwap.get(token) ?? Infinity)
        wallets++
        if (sellers.get(token)?.has(x.wallet)) sold++
      }
    }
    expect(sold / wallets).toBeGreaterThan(0.5)
  })

  it('createChainSimulator() has deployers with long histories, some of whose tokens become real (>= 50 swaps, 20 traders, 1 WETH)', () => {
    const launches = new Map<string, { token: string; block: number }[]>()
    for (const b of HISTORY) for (const c of b.creations) launches.set(c.deployer, [...(launches.get(c.deployer) ?? []), { token: c.address, block: b.number }])
    const stats = new Map<string, { swaps: number; traders: Set<string>; weth: bigint; last: number }>()
    for (const { e, txFrom, block } of ITEMS) {
      const s = swapOf(e)
      if (s === null) continue
      const st = stats.get(s.listing.token) ?? { swaps: 0, traders: new Set(), weth: 0n, last: 0 }
      st.swaps++
      st.traders.add(txFrom)
      st.weth += s.weth
      st.last = block
      stats.set(s.listing.token, st)
    }
    const isReal = (token: string) => {
      const s = stats.get(token)
      return s !== undefined && s.swaps >= 50 && s.traders.size >= 20 && s.weth >= WEI
    }
    const serial = [...launches.values()].filter((l) => l.length >= 8 && l[l.length - 1].block - l[0].block > END / 2)
    expect(serial.length).toBeGreaterThan(2)
    expect(serial.filter((l) => l.some((x) => isReal(x.token))).length).toBeGreaterThan(0)
    // Real tokens on every venue; dead ones (no swap in the last 1000 blocks) are the majority.
    const realVenues = new Set([...stats.keys()].filter(isReal).map((t) => LISTING_OF_TOKEN.get(t)!.venue))
    expect([...realVenues].sort()).toEqual(['v2', 'v3', 'v4'])
    const dead = [...stats.values()].filter((s) => END - s.last > 1000)
    expect(dead.length / stats.size).toBeGreaterThan(0.5)
  })
})

describe('createPriceSimulator()', () => {
  const START = 1_735_689_600

  it('createPriceSimulator() opens at startPrice and gives well-formed one-minute candles', () => {
    const p = createPriceSimulator({ seed: 1, pair: 'ETH/USD', startPrice: 3000 })
    expect(p.candleAt(START).open).toBe('3000.00000000')
    let prev = p.candleAt(START - 60)
    for (let m = START; m < START + 3000 * 60; m += 60) {
      const c = p.candleAt(m)
      expect(PriceCandle.safeParse(c).success).toBe(true)
      expect(c.minute).toBe(m)
      // A candle opens where the previous one closed.
      expect(c.open).toBe(prev.close)
      prev = c
    }
    expect(PriceCandle.safeParse({ ...prev, minute: prev.minute + 1 }).success).toBe(false)
    expect(PriceCandle.safeParse({ ...prev, high: '1.123456789' }).success).toBe(false)
    expect(PriceCandle.safeParse({ ...prev, low: String(Number(prev.high) + 1) }).success).toBe(false)
    expect(() => p.candleAt(START + 30)).toThrow(RangeError)
  })

  it('createPriceSimulator() is a pure function of seed and minute: any order, any instance, same candles', () => {
    const minutes = Array.from({ length: 400 }, (_, i) => START + (i * 7919 - 100_000) * 60)
    const a = createPriceSimulator({ seed: 'x', pair: 'ETH/USD', startPrice: 3000 })
    const forward = minutes.map((m) => a.candleAt(m))
    const b = createPriceSimulator({ seed: 'x', pair: 'ETH/USD', startPrice: 3000 })
    const backward = [...minutes].reverse().map((m) => b.candleAt(m)).reverse()
    expect(JSON.stringify(backward)).toBe(JSON.stringify(forward))
    const c = createPriceSimulator({ seed: 'y', pair: 'ETH/USD', startPrice: 3000 })
    expect(c.candleAt(minutes[5]).close).not.toBe(forward[5].close)
  })

  it('createPriceSimulator() moves like ETH: about 70% a year, never below zero', () => {
    const p = createPriceSimulator({ seed: 3, pair: 'ETH/USD', startPrice: 3000 })
    const daily = Array.from({ length: 730 }, (_, d) => Math.log(Number(p.candleAt(START + d * 86_400).open)))
    const r = daily.slice(1).map((x, i) => x - daily[i])
    const mean = r.reduce((s, x) => s + x, 0) / r.length
    const vol = Math.sqrt(r.reduce((s, x) => s + (x - mean) ** 2, 0) / r.length) * Math.sqrt(365.25)
    expect(vol).toBeGreaterThan(0.55)
    expect(vol).toBeLessThan(0.85)
    expect(daily.every((x) => Number.isFinite(x))).toBe(true)
  })
})
