import { getAddress, getCreate2Address, keccak256, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectedFromChain, type ChainExpectations } from '../setup/chain-expectations.ts'
import { runScenario, type ScenarioResult } from '../setup/chain-scenario.ts'
import { startHardhatNode, type HardhatNode } from '../../infra/hardhat/node.ts'
import { artifacts, ROUTER02_PAIR_INIT_CODE_HASH } from '../setup/hardhat/artifacts.ts'

describe('hardhat harness: a real chain 4663 with Uniswap v2 and a scripted market', () => {
  let node: HardhatNode
  let scenario: ScenarioResult
  let expected: ChainExpectations
  const timings: Record<string, number> = {}

  beforeAll(async () => {
    let t = Date.now()
    node = await startHardhatNode()
    timings.start = Date.now() - t
    t = Date.now()
    scenario = await runScenario(node)
    timings.scenario = Date.now() - t
    t = Date.now()
    expected = await expectedFromChain(node.client, {
      fromBlock: scenario.fromBlock,
      toBlock: scenario.toBlock,
      weth: scenario.v2.weth,
      factory: scenario.v2.factory,
    })
    timings.expectations = Date.now() - t
    console.log(`[hardhat-harness] ms: ${JSON.stringify(timings)}; blocks ${scenario.fromBlock}..${scenario.toBlock}`)
  })

  afterAll(async () => {
    await node?.stop()
  })

  it('serves chain id 4663 on 127.0.0.1 with 30 funded accounts', async () => {
    expect(node.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(await node.client.getChainId()).toBe(4663)
    expect(node.accounts).toHaveLength(30)
    expect(await node.client.getBalance({ address: node.accounts[29] })).toBeGreaterThan(0n)
  })

  it("the shipped Router02's pair init code hash is the shipped factory's pair code hash", async () => {
    expect(keccak256(artifacts.pair.bytecode)).toBe(ROUTER02_PAIR_INIT_CODE_HASH)
    for (const token of scenario.tokens) {
      const [a, b] = [token.address, scenario.v2.weth].map((x) => x.toLowerCase()).sort() as [Address, Address]
      const predicted = getCreate2Address({
        from: scenario.v2.factory,
        salt: keccak256(`0x${a.slice(2)}${b.slice(2)}`),
        bytecodeHash: ROUTER02_PAIR_INIT_CODE_HASH,
      })
      expect(predicted).toBe(token.pair)
    }
  })

  it('deployers are the creating transactions’ senders, from different accounts', () => {
    expect(new Set(scenario.tokens.map((t) => t.deployer)).size).toBe(3)
    for (const token of scenario.tokens) {
      const e = expected.tokens.get(token.address)!
      expect(e.pair).toBe(token.pair)
      expect(e.deployer).toBe(token.deployer)
      expect(e.creationTx).toBe(token.creationTx)
      expect(e.creationBlock).toBe(token.creationBlock)
    }
  })

  it('the popular token becomes real mid-scenario; the small ones do not', () => {
    const pop = scenario.tokens.find((t) => t.popular)!
    const e = expected.tokens.get(pop.address)!
    expect(e.swaps).toBeGreaterThanOrEqual(50)
    expect(e.traders.length).toBeGreaterThanOrEqual(20)
    expect(e.wethVolume).toBeGreaterThanOrEqual(10n ** 18n)
    expect(e.realBlock).not.toBeNull()
    // It is the block of the 50th swap on its pair (traders and volume are reached earlier).
    const popSwaps = expected.swaps.filter((s) => s.token === pop.address)
    expect(e.realBlock).toBe(popSwaps[49].blockNumber)
    expect(e.realBlock!).toBeLessThan(popSwaps.at(-1)!.blockNumber)
    for (const small of scenario.tokens.filter((t) => !t.popular)) {
      const s = expected.tokens.get(small.address)!
      expect(s.swaps).toBeGreaterThan(0)
      expect(s.swaps).toBeLessThan(50)
      expect(s.realBlock).toBeNull()
    }
    // Every trade the scenario sent is accounted for: one swap each, two for a routed trade.
    const swapsSent = scenario.trades.reduce((n, t) => n + (t.kind === 'route' ? 2 : 1), 0)
    expect(expected.swaps).toHaveLength(swapsSent)
    const volume = [...expected.tokens.values()].reduce((v, t) => v + t.wethVolume, 0n)
    expect(volume).toBe(expected.swaps.reduce((v, s) => v + s.wethIn + s.wethOut, 0n))
  })

  it('a routed trade A -> WETH -> B is two Swap events in one transaction with the same trader', () => {
    const routes = scenario.trades.filter((t) => t.kind === 'route')
    expect(routes.length).toBeGreaterThan(0)
    for (const r of routes) {
      const swaps = expected.swaps.filter((s) => s.txHash === r.hash)
      expect(swaps).toHaveLength(2)
      const [sellA, buyB] = swaps
      expect(sellA.token).toBe(r.from)
      expect(buyB.token).toBe(r.to)
      expect(sellA.trader).toBe(r.trader)
      expect(buyB.trader).toBe(r.trader)
      // A is sold for WETH, that same WETH buys B.
      expect(sellA.wethOut).toBeGreaterThan(0n)
      expect(buyB.wethIn).toBe(sellA.wethOut)
    }
  })

  it('rounds of trades share blocks', () => {
    const perBlock = new Map<bigint, number>()
    for (const s of expected.swaps) perBlock.set(s.blockNumber, (perBlock.get(s.blockNumber) ?? 0) + 1)
    expect(Math.max(...perBlock.values())).toBeGreaterThan(5)
  })

  it('snapshot / revert / mine: a reverted branch is replaced by blocks with other hashes', async () => {
    const head = await node.client.getBlockNumber()
    const id = await node.snapshot()
    const pop = scenario.tokens.find((t) => t.popular)!
    const trader = getAddress(node.accounts[10])
    // (This WETH9 build has no receive/fallback function: wrap with deposit().)
    await node.client.writeContract({
      account: trader,
      address: scenario.v2.weth,
      abi: artifacts.weth.abi,
      functionName: 'deposit',
      value: 10n ** 15n,
      chain: node.chain,
    })
    await node.mine(2)
    expect(await node.client.getBlockNumber()).toBe(head + 3n)
    const before = await node.client.getBlock({ blockNumber: head + 1n })
    await node.revert(id)
    expect(await node.client.getBlockNumber()).toBe(head)
    await node.mine(3)
    const after = await node.client.getBlock({ blockNumber: head + 1n })
    expect(after.hash).not.toBe(before.hash)
    expect(after.transactions).toHaveLength(0)
    // The scenario's history before the snapshot is untouched.
    const again = await expectedFromChain(node.client, {
      fromBlock: scenario.fromBlock,
      toBlock: scenario.toBlock,
      weth: scenario.v2.weth,
      factory: scenario.v2.factory,
    })
    expect(again.tokens.get(pop.address)).toEqual(expected.tokens.get(pop.address))
  })
})
