import { describe, expect, it } from 'vitest'
import { decodeLog } from '../../pipelines/decode/index.ts'
import { chainRows, memoryRowsState } from '../../pipelines/process/chain-rows.ts'
import { SIM_4663_CONTRACTS } from '../../pipelines/sim/contracts.ts'
import { createChainSimulator } from '../../pipelines/sim/chain-sim.ts'

const follow = {
  weth: new Set([SIM_4663_CONTRACTS.weth]),
  v2Factories: new Set(SIM_4663_CONTRACTS.v2Factories),
  v3Factories: new Set(SIM_4663_CONTRACTS.v3Factories),
  v4PoolManagers: new Set(SIM_4663_CONTRACTS.v4PoolManagers),
}

const sim = createChainSimulator({ chainId: 4663, seed: 11 })
const blocks = Array.from({ length: 3000 }, () => sim.nextBlock())
const { tables, rejected } = await chainRows(4663, blocks, memoryRowsState(follow))
const rows = Object.fromEntries(tables) as Record<string, Array<Record<string, string | number>>>

describe('chainRows()', () => {

  it('chainRows() turns every v2, v3 and v4 swap into one row, with one side in and the other out', () => {
    expect(rejected).toEqual([])
    const swapLogs = blocks.flatMap((b) => b.logs).filter((l) => ['v2_swap', 'v3_swap', 'v4_swap'].includes(decodeLog(l)?.type ?? ''))
    expect(rows.swaps!.length).toBe(swapLogs.length)
    const protocols = new Set(rows.swaps!.map((r) => r.protocol))
    expect([...protocols].sort()).toEqual(['v2', 'v3', 'v4'])
    for (const r of rows.swaps!) {
      const wethIn = BigInt(r.weth_in!)
      const wethOut = BigInt(r.weth_out!)
      const tokenIn = BigInt(r.token_in!)
      const tokenOut = BigInt(r.token_out!)
      // A buy pays WETH in and takes tokens out; a sell the reverse.
      expect(wethIn > 0n !== wethOut > 0n, JSON.stringify(r)).toBe(true)
      expect(wethIn > 0n ? tokenOut > 0n && tokenIn === 0n : tokenIn > 0n && tokenOut === 0n, JSON.stringify(r)).toBe(true)
      expect(r.token).not.toBe(SIM_4663_CONTRACTS.weth)
    }
  })

  it('chainRows() launches a token once, at its first WETH pool, on every venue', () => {
    const launched = rows.launches!.map((r) => r.token)
    expect(new Set(launched).size).toBe(launched.length)
    expect(new Set(rows.launches!.map((r) => r.protocol))).toEqual(new Set(['v2', 'v3', 'v4']))
    const visible = rows.launches!.map((r) => Number(r.visible_at))
    expect(visible).toEqual([...visible].sort((a, b) => a - b))
    expect(new Set(visible).size).toBe(visible.length)
  })

  it('chainRows() measures v2 liquidity in WETH and v3/v4 liquidity in L, both ways', () => {
    const kinds = new Set(rows.liquidity_events!.map((r) => `${r.kind}`))
    expect(kinds).toEqual(new Set(['mint', 'burn']))
    for (const r of rows.liquidity_events!) expect(BigInt(r.liquidity!)).toBeGreaterThan(0n)
  })
})
