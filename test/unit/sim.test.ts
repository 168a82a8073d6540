import { describe, expect, it } from 'vitest'
import { decodeLog } from '../../pipelines/decode/index.ts'
import type { DecodedEvent } from '../../pipelines/decode/types.ts'
import { ChainBlock } from '../../pipelines/records/chain-block.ts'
import { getAmountOut } from '../../pipelines/sim/amm.ts'
import { createChainSimulator } from '../../pipelines/sim/chain-sim.ts'
import {
  SIM_4663_CONTRACTS,
  SIM_4663_V2_FACTORY,
  SIM_4663_V2_ROUTER,
  SIM_4663_WETH,
  simContracts,
  ZERO_ADDRESS,
} from '../../pipelines/sim/contracts.ts'
import { createRng } from '../../pipelines/sim/prng.ts'

const ZERO_HASH = '0x' + '0'.repeat(64)

function run(seed: number | string, blocks: number): ChainBlock[] {
  const sim = createChainSimulator({ chainId: 4663, seed })
  return Array.from({ length: blocks }, () => sim.nextBlock())
}

// One long history shared by the world checks below (generating it is the slow part).
const HISTORY = run(7, 8000)

describe('createRng()', () => {
  it('createRng() repeats a sequence for a seed and differs across seeds', () => {
    const a = createRng(1)
    const b = createRng(1)
    const c = createRng(2)
    const sa = Array.from({ length: 100 }, () => a.u32())
    expect(Array.from({ length: 100 }, () => b.u32())).toEqual(sa)
    expect(Array.from({ length: 100 }, () => c.u32())).not.toEqual(sa)
    const r = createRng('floats')
    for (let i = 0; i < 10_000; i++) {
      const f = r.float()
      expect(f >= 0 && f < 1).toBe(true)
    }
  })
})

describe('createChainSimulator()', () => {
  it('createChainSimulator() exports the chain 4663 contracts it uses', () => {
    const c = simContracts(4663)
    expect(SIM_4663_WETH).toBe(c.weth)
    expect(SIM_4663_V2_FACTORY).toBe(c.v2Factories[0])
    expect(SIM_4663_V2_ROUTER).toBe(c.v2Routers[0])
    expect(SIM_4663_CONTRACTS).toEqual(c)
    expect(createChainSimulator({ chainId: 4663, seed: 1 }).contracts).toEqual(c)
  })

  it('createChainSimulator() gives byte-identical blocks for the same seed', () => {
    expect(JSON.stringify(run(42, 1500))).toBe(JSON.stringify(run(42, 1500)))
  })

  it('createChainSimulator() makes the same hashes for a seed as earlier versions did (a data dir outlives an upgrade, and its world is replayed)', () => {
    // Pinned from the code before the hashes' hex digits came from a byte table (stop 73).
    const [first, second] = run(7, 2)
    expect(first!.hash).toBe('0xcb02ea741c1edcf444a1e9db530096d5ad8cf4be33f8f6ba688b4f4c5c9ba2fe')
    expect(second!.hash).toBe('0x517fdc429cbf6f3b37b95e167f72a70d9572f82ea1571294e21e4c503ca2a81e')
    expect(second!.parentHash).toBe(first!.hash)
    expect(first!.logs[0]!.txHash).toBe('0x400c8cfd8ccceef703f6a3957d8c33645474723f72d72bfe05fcd8884dd24893')
  })

  it('createChainSimulator() gives different blocks for a different seed', () => {
    const a = run(42, 300)
    const b = run(43, 300)
    expect(a[0].hash).not.toBe(b[0].hash)
    expect(JSON.stringify(a.map((x) => x.logs))).not.toBe(JSON.stringify(b.map((x) => x.logs)))
  })

  it('createChainSimulator() resumes from a block with fromBlock or skipTo exactly as a full run', () => {
    const resumed = createChainSimulator({ chainId: 4663, seed: 7, fromBlock: 3000 })
    expect(resumed.nextNumber).toBe(3000)
    expect(resumed.nextBlock()).toEqual(HISTORY[2999])
    const skipped = createChainSimulator({ chainId: 4663, seed: 7 })
    skipped.nextBlock()
    skipped.skipTo(5000)
    expect(skipped.nextBlock()).toEqual(HISTORY[4999])
    expect(skipped.nextBlock()).toEqual(HISTORY[5000])
    expect(() => skipped.skipTo(10)).toThrow(RangeError)
  })

  it('createChainSimulator() emits blocks that parse as ChainBlock, numbered, timed and chained by parent hash', () => {
    // Problems are collected, not asserted one by one: expect() per log dominates the run time.
    const problems: string[] = []
    let prev: ChainBlock | null = null
    for (const block of HISTORY) {
      const parsed = ChainBlock.safeParse(block)
      if (!parsed.success) problems.push(`block ${block.number}: ${parsed.error.message}`)
      if (block.chainId !== 4663) problems.push(`block ${block.number}: chainId ${block.chainId}`)
      if (prev !== null) {
        if (block.number !== prev.number + 1) problems.push(`block ${block.number} after ${prev.number}`)
        if (block.parentHash !== prev.hash) problems.push(`block ${block.number}: parentHash`)
        if (block.timestamp !== prev.timestamp + 2) problems.push(`block ${block.number}: timestamp`)
      }
      block.logs.forEach((log, i) => log.logIndex !== i && problems.push(`block ${block.number}: logIndex ${log.logIndex} at ${i}`))
      prev = block
    }
    expect(problems).toEqual([])
    expect(HISTORY[0].number).toBe(1)
    expect(HISTORY[0].parentHash).not.toBe(ZERO_HASH)
    const hashes = new Set(HISTORY.map((b) => b.hash))
    expect(hashes.size).toBe(HISTORY.length)
    const txHashes = new Set(HISTORY.flatMap((b) => b.logs.map((l) => l.txHash)))
    expect(txHashes.size).toBe(new Set(HISTORY.flatMap((b) => b.logs.map((l) => `${b.number}/${l.txIndex}`))).size)
  })

  it('createChainSimulator() emits only logs that decodeLog() decodes', () => {
    const undecoded: unknown[] = []
    let n = 0
    for (const block of HISTORY) {
      for (const log of block.logs) {
        n++
        const d = decodeLog(log)
        if (d === null || d.type === 'malformed') undecoded.push({ log, d })
      }
    }
    expect(undecoded).toEqual([])
    expect(n / HISTORY.length).toBeGreaterThan(10)
  })

  it('createChainSimulator() keeps every pool consistent: Sync reserves follow Mint, Burn and Swap amounts at the 0.3% fee', () => {
    const problems: string[] = []
    const check = (ok: boolean, what: string) => ok || problems.push(what)
    const reserves = new Map<string, [bigint, bigint]>()
    let swaps = 0
    for (const block of HISTORY) {
      const events = block.logs.map((l) => decodeLog(l)!)
      events.forEach((e, i) => {
        const at = `block ${block.number} log ${i}`
        if (e.type === 'v2_sync') {
          check(['v2_swap', 'v2_mint', 'v2_burn'].includes(events[i + 1]?.type), `${at}: Sync without Swap/Mint/Burn`)
        }
        if (e.type === 'v2_pair_created') {
          check(!reserves.has(e.pair), `${at}: pair created twice`)
          reserves.set(e.pair, [0n, 0n])
          return
        }
        if (e.type !== 'v2_swap' && e.type !== 'v2_mint' && e.type !== 'v2_burn') return
        // The pair emits Sync right before Swap/Mint/Burn, in the same transaction.
        const s = events[i - 1]
        if (s?.type !== 'v2_sync' || s.address !== e.address || block.logs[i - 1].txHash !== block.logs[i].txHash) {
          problems.push(`${at}: ${e.type} not preceded by its pair's Sync`)
          return
        }
        const [r0, r1] = reserves.get(e.address)!
        let want: [bigint, bigint]
        if (e.type === 'v2_mint') want = [r0 + e.amount0, r1 + e.amount1]
        else if (e.type === 'v2_burn') want = [r0 - e.amount0, r1 - e.amount1]
        else {
          swaps++
          want = [r0 + e.amount0In - e.amount0Out, r1 + e.amount1In - e.amount1Out]
          const exact = e.amount0In > 0n ? e.amount1Out === getAmountOut(e.amount0In, r0, r1) : e.amount0Out === getAmountOut(e.amount1In, r1, r0)
          check(exact, `${at}: swap output is not getAmountOut of its input`)
          check((e.amount0In > 0n) !== (e.amount1In > 0n), `${at}: swap must have exactly one input side`)
        }
        check(s.reserve0 === want[0] && s.reserve1 === want[1], `${at}: Sync ${s.reserve0},${s.reserve1} != ${want}`)
        check(s.reserve0 > 0n && s.reserve1 > 0n, `${at}: empty reserve`)
        reserves.set(e.address, want)
      })
    }
    expect(problems.slice(0, 10)).toEqual([])
    expect(swaps).toBeGreaterThan(10_000)
  })

  it('createChainSimulator() launches tokens with a creation and a mint to the deployer in the same transaction', () => {
    let launches = 0
    for (const block of HISTORY) {
      for (const c of block.creations) {
        launches++
        const mint = block.logs.filter((l) => l.txHash === c.txHash).map((l) => ({ l, d: decodeLog(l)! }))
        expect(mint).toHaveLength(1)
        expect(mint[0].l.address).toBe(c.address)
        expect(mint[0].l.txFrom).toBe(c.deployer)
        expect(mint[0].d).toMatchObject({ type: 'erc20_transfer', from: ZERO_ADDRESS, to: c.deployer })
      }
    }
    expect(launches).toBeGreaterThan(100)
  })

  it('createChainSimulator() routes trades through the router with the trader as txFrom, pairs ordered by address', () => {
    const problems: string[] = []
    const check = (ok: boolean, what: string) => ok || problems.push(what)
    const pairs = new Map<string, { token0: string; token1: string }>()
    let buys = 0
    let sells = 0
    for (const block of HISTORY) {
      for (const log of block.logs) {
        const e = decodeLog(log)!
        const at = `block ${block.number} log ${log.logIndex}`
        if (e.type === 'v2_pair_created') {
          check(e.address === SIM_4663_V2_FACTORY, `${at}: factory`)
          check(e.token0 < e.token1, `${at}: token order`)
          check(e.token0 === SIM_4663_WETH || e.token1 === SIM_4663_WETH, `${at}: not a WETH pair`)
          pairs.set(e.pair, e)
        }
        if (e.type !== 'v2_swap') continue
        const pair = pairs.get(e.address)
        if (pair === undefined) {
          problems.push(`${at}: swap on an unknown pair`)
          continue
        }
        check(e.sender === SIM_4663_V2_ROUTER, `${at}: sender is not the router`)
        check(log.txFrom !== SIM_4663_V2_ROUTER && !pairs.has(log.txFrom), `${at}: txFrom is a router or pair`)
        const wethIn = pair.token0 === SIM_4663_WETH ? e.amount0In : e.amount1In
        if (wethIn > 0n) {
          buys++
          // Buys (also the second hop of a routed A -> WETH -> B trade) pay the trader.
          check(e.to === log.txFrom, `${at}: buy pays ${e.to}, not the trader`)
        } else {
          sells++
          // Sells pay the router (to unwrap), the trader (WETH), or the next pair of a routed trade.
          check(e.to === SIM_4663_V2_ROUTER || e.to === log.txFrom || pairs.has(e.to), `${at}: sell pays ${e.to}`)
        }
      }
    }
    expect(problems.slice(0, 10)).toEqual([])
    expect(buys).toBeGreaterThan(1000)
    expect(sells).toBeGreaterThan(1000)
  })

  it('createChainSimulator() has repeat launchers, a few popular tokens and many that die young', () => {
    const byDeployer = new Map<string, number>()
    const tokenOf = new Map<string, string>() // pair -> token
    const swapsOf = new Map<string, { swaps: number; traders: Set<string>; last: number }>()
    for (const block of HISTORY) {
      for (const c of block.creations) byDeployer.set(c.deployer, (byDeployer.get(c.deployer) ?? 0) + 1)
      for (const log of block.logs) {
        const e: DecodedEvent = decodeLog(log)!
        if (e.type === 'v2_pair_created') {
          const token = e.token0 === SIM_4663_WETH ? e.token1 : e.token0
          tokenOf.set(e.pair, token)
          swapsOf.set(token, { swaps: 0, traders: new Set(), last: block.number })
        }
        if (e.type === 'v2_swap') {
          const s = swapsOf.get(tokenOf.get(e.address)!)!
          s.swaps++
          s.traders.add(log.txFrom)
          s.last = block.number
        }
      }
    }
    expect([...byDeployer.values()].filter((n) => n >= 2).length).toBeGreaterThan(5)
    const stats = [...swapsOf.values()]
    const popular = stats.filter((s) => s.swaps >= 50 && s.traders.size >= 20)
    expect(popular.length).toBeGreaterThan(3)
    expect(popular.length / stats.length).toBeLessThan(0.25)
    const end = HISTORY[HISTORY.length - 1].number
    const deadEarly = stats.filter((s) => s.swaps < 50 && end - s.last > 1000)
    expect(deadEarly.length / stats.length).toBeGreaterThan(0.5)
  })
})
