import {
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  maxUint256,
  numberToHex,
  parseEther,
  type Address,
  type Hash,
  type Hex,
} from 'viem'
import { artifacts, type Artifact } from './hardhat/artifacts.ts'
import type { HardhatNode } from '../../infra/hardhat/node.ts'

/**
 * A small, deterministic market on a real Hardhat node, made only of real transactions:
 * Uniswap v2 (WETH9, factory, Router02 from the packages' compiled artifacts), ERC20 tokens
 * launched by different deployer accounts, token/WETH pairs seeded with `addLiquidityETH`,
 * then blocks of swaps by many trader wallets through the router: buys
 * (`swapExactETHForTokens`), sells (`swapExactTokensForETH`) and routed trades
 * (`swapExactTokensForTokens` along [A, WETH, B], one transaction, two pair Swap events).
 *
 * Accounts (the node's, in order): #0 deploys Uniswap, #1..#3 deploy tokens, #4.. trade.
 * One token (POP) gets 56 swaps from 26 traders and several WETH of volume, crossing the
 * "real" thresholds (50 swaps, 20 traders, 1 WETH) in a block in the middle of the scenario;
 * the others stay small. Each round of trades is mined as one block (automine is paused
 * while the round is sent), so blocks hold several swaps.
 *
 * Before any pool exists, deployers hand out supply off-market (`allocations`): POP's deployer
 * sends 1% of supply to trader #10 (who passes part of it on to a fresh wallet) and an uneven
 * amount to another fresh wallet; SMA's deployer sends 0.5% to a third. Midway, the clock jumps
 * 25 hours (`TIME_JUMP_SECONDS`), so the chain has more than 24 h of block timestamps and the
 * last rounds fall inside the 24 h window that ends at the head.
 */

export interface UniswapV2Deployment {
  weth: Address
  factory: Address
  router: Address
  /** The account that deployed the three contracts. */
  deployer: Address
}

export interface ScenarioToken {
  symbol: string
  name: string
  address: Address
  /** `from` of the contract-creation transaction. */
  deployer: Address
  creationTx: Hash
  creationBlock: bigint
  /** The token/WETH pair created by `addLiquidityETH`. */
  pair: Address
  /** True for the token meant to become real. */
  popular: boolean
}

export type ScenarioTrade =
  | { kind: 'buy'; trader: Address; token: Address; hash: Hash; block: bigint }
  | { kind: 'sell'; trader: Address; token: Address; hash: Hash; block: bigint }
  | { kind: 'route'; trader: Address; from: Address; to: Address; hash: Hash; block: bigint }

/** An off-market transfer of a token before its first swap. */
export interface ScenarioAllocation {
  token: Address
  from: Address
  to: Address
  amount: bigint
  hash: Hash
}

export interface ScenarioResult {
  v2: UniswapV2Deployment
  tokens: ScenarioToken[]
  /** Off-market transfers sent before any pool existed, in order. */
  allocations: ScenarioAllocation[]
  /** Every account that traded, in account order. */
  traders: Address[]
  /** Every swap transaction sent, in mined order. */
  trades: ScenarioTrade[]
  /** First and last block the scenario wrote (Uniswap deployment included when it was done here). */
  fromBlock: bigint
  toBlock: bigint
}

export interface ScenarioOptions {
  /** An existing deployment to use; deployed from account #0 when omitted. */
  v2?: UniswapV2Deployment
  /** Seed of the trade sizes (default 4663). */
  seed?: number
}

const GAS = {
  approve: 100_000n,
  swap: 400_000n,
  liquidity: 5_000_000n,
}

const TOKEN_SUPPLY = parseEther('1000000000') // 1e9 tokens, 18 decimals
/** The clock jump between the early and the late rounds: more than 24 h. */
export const TIME_JUMP_SECONDS = 25 * 3600
/** Fresh wallets (no key needed: they only receive) that get supply before trading starts. */
export const ALLOCATION_WALLETS = [getAddress(`0x${'f1'.repeat(20)}`), getAddress(`0x${'f2'.repeat(20)}`), getAddress(`0x${'f3'.repeat(20)}`)] as const

/** Deploys WETH9, UniswapV2Factory(feeToSetter = deployer) and UniswapV2Router02(factory, WETH). */
export async function deployUniswapV2(node: HardhatNode, from: Address = node.accounts[0]): Promise<UniswapV2Deployment> {
  const weth = (await deploy(node, from, artifacts.weth, [])).address
  const factory = (await deploy(node, from, artifacts.factory, [from])).address
  const router = (await deploy(node, from, artifacts.router, [factory, weth])).address
  return { weth, factory, router, deployer: from }
}

export async function runScenario(node: HardhatNode, options: ScenarioOptions = {}): Promise<ScenarioResult> {
  const { client, accounts } = node
  if (accounts.length < 30) throw new Error(`runScenario needs 30 accounts, the node has ${accounts.length}`)
  const fromBlock = (await client.getBlockNumber()) + 1n
  const v2 = options.v2 ?? (await deployUniswapV2(node))
  const random = mulberry32(options.seed ?? 4663)

  // Launches: account #1 launches twice (POP and SMC), #2 and #3 once each.
  const launches = [
    { symbol: 'POP', name: 'Popular Token', deployer: accounts[1], eth: '20', popular: true },
    { symbol: 'SMA', name: 'Small A', deployer: accounts[2], eth: '3', popular: false },
    { symbol: 'SMB', name: 'Small B', deployer: accounts[3], eth: '2', popular: false },
    { symbol: 'SMC', name: 'Small C', deployer: accounts[1], eth: '1', popular: false },
  ]
  const tokens: ScenarioToken[] = []
  for (const l of launches) {
    const created = await deploy(node, l.deployer, artifacts.token, [l.name, l.symbol, TOKEN_SUPPLY, l.deployer])
    tokens.push({
      symbol: l.symbol,
      name: l.name,
      address: created.address,
      deployer: l.deployer,
      creationTx: created.hash,
      creationBlock: created.block,
      pair: '0x' as Address,
      popular: l.popular,
    })
  }
  // Off-market allocations before any pool exists (so before any swap).
  const allocations: ScenarioAllocation[] = []
  const allocate = async (token: ScenarioToken, from: Address, to: Address, amount: bigint) => {
    const r = await sendMined(node, from, token.address, erc20Call('transfer', [to, amount]), 0n, GAS.approve)
    allocations.push({ token: token.address, from, to, amount, hash: r.transactionHash })
  }
  await allocate(tokens[0], tokens[0].deployer, accounts[4 + 10], TOKEN_SUPPLY / 100n)
  await allocate(tokens[0], accounts[4 + 10], ALLOCATION_WALLETS[0], parseEther('1234567'))
  await allocate(tokens[0], tokens[0].deployer, ALLOCATION_WALLETS[1], parseEther('777777') + 7n)
  await allocate(tokens[1], tokens[1].deployer, ALLOCATION_WALLETS[2], TOKEN_SUPPLY / 200n)

  for (const [i, l] of launches.entries()) {
    const token = tokens[i]
    await sendMined(node, l.deployer, token.address, erc20Call('approve', [v2.router, maxUint256]), 0n, GAS.approve)
    await sendMined(
      node,
      l.deployer,
      v2.router,
      routerCall('addLiquidityETH', [token.address, TOKEN_SUPPLY / 2n, 0n, 0n, l.deployer, maxUint256]),
      parseEther(l.eth),
      GAS.liquidity,
    )
    token.pair = getAddress(
      (await client.readContract({
        address: v2.factory,
        abi: artifacts.factory.abi,
        functionName: 'getPair',
        args: [token.address, v2.weth],
      })) as Address,
    )
  }

  const [POP, SMA, SMB, SMC] = tokens.map((t) => t.address)
  const t = (i: number) => accounts[4 + i]
  const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, k) => t(a + k))
  const buy = (token: Address, traders: Address[]): Plan[] => traders.map((trader) => ({ kind: 'buy', trader, token }))
  const sell = (token: Address, traders: Address[], bps: bigint): Plan[] =>
    traders.map((trader) => ({ kind: 'sell', trader, token, bps }))
  const route = (from: Address, to: Address, traders: Address[], bps: bigint): Plan[] =>
    traders.map((trader) => ({ kind: 'route', trader, from, to, bps }))

  // One entry per block. POP's swap count per round: 8 16 22 28 31 | 39 45 47 53 56.
  const rounds: Array<Plan[] | { emptyBlocks: number } | { advanceSeconds: number }> = [
    [...buy(POP, range(0, 7)), ...buy(SMA, range(20, 22))],
    [...buy(POP, range(8, 15)), ...buy(SMB, range(23, 24))],
    [...buy(POP, range(16, 21)), ...buy(SMC, [t(25)])],
    sell(POP, range(0, 5), 5_000n),
    route(SMA, POP, range(20, 22), 10_000n),
    { advanceSeconds: TIME_JUMP_SECONDS },
    { emptyBlocks: 2 },
    buy(POP, range(0, 7)),
    sell(POP, range(8, 13), 3_000n),
    route(POP, SMB, range(14, 15), 5_000n),
    [...buy(POP, range(22, 25)), ...buy(POP, range(16, 17))], // the 50th POP swap: POP becomes real here
    [...sell(SMB, [t(23)], 10_000n), ...sell(SMC, [t(25)], 5_000n), ...buy(POP, [t(18), t(19), t(24)])],
    buy(SMA, [t(0)]),
  ]

  const approved = new Set<string>()
  const trades: ScenarioTrade[] = []
  for (const round of rounds) {
    if ('advanceSeconds' in round) {
      await client.increaseTime({ seconds: round.advanceSeconds })
      continue
    }
    if ('emptyBlocks' in round) {
      await node.mine(round.emptyBlocks)
      continue
    }
    const sent: Array<{ plan: Plan; hash: Hash }> = []
    const approvals: Hash[] = []
    // Balances as of the last mined block (a trader sells at most once per token per round).
    const amounts = await Promise.all(
      round.map(async (plan) => {
        if (plan.kind === 'buy') return 0n
        const token = plan.kind === 'sell' ? plan.token : plan.from
        const balance = (await client.readContract({
          address: token,
          abi: artifacts.token.abi,
          functionName: 'balanceOf',
          args: [plan.trader],
        })) as bigint
        return (balance * plan.bps) / 10_000n
      }),
    )
    await client.setAutomine(false)
    try {
      for (const [i, plan] of round.entries()) {
        if (plan.kind !== 'buy') {
          const token = plan.kind === 'sell' ? plan.token : plan.from
          const key = `${plan.trader}:${token}`
          if (!approved.has(key)) {
            approved.add(key)
            approvals.push(await send(node, plan.trader, token, erc20Call('approve', [v2.router, maxUint256]), 0n, GAS.approve))
          }
        }
        const [to, data, value] = swapCall(plan, amounts[i], v2, random)
        sent.push({ plan, hash: await send(node, plan.trader, to, data, value, GAS.swap) })
      }
      await node.mine(1)
    } finally {
      await client.setAutomine(true)
    }
    const receipts = await Promise.all([...approvals, ...sent.map((s) => s.hash)].map((hash) => client.getTransactionReceipt({ hash })))
    const failed = receipts.filter((r) => r.status !== 'success')
    if (failed.length > 0) throw new Error(`scenario transactions reverted: ${failed.map((r) => r.transactionHash).join(', ')}`)
    if (new Set(receipts.map((r) => r.blockNumber)).size !== 1) throw new Error('a scenario round did not fit in one block')
    const block = receipts[0].blockNumber
    for (const { plan, hash } of sent) {
      trades.push(
        plan.kind === 'route'
          ? { kind: 'route', trader: plan.trader, from: plan.from, to: plan.to, hash, block }
          : { kind: plan.kind, trader: plan.trader, token: plan.token, hash, block },
      )
    }
  }

  const traderSet = new Set(trades.map((x) => x.trader))
  return {
    v2,
    tokens,
    allocations,
    traders: accounts.filter((a) => traderSet.has(a)),
    trades,
    fromBlock,
    toBlock: await client.getBlockNumber(),
  }
}

type Plan =
  | { kind: 'buy'; trader: Address; token: Address }
  | { kind: 'sell'; trader: Address; token: Address; bps: bigint }
  | { kind: 'route'; trader: Address; from: Address; to: Address; bps: bigint }

function swapCall(plan: Plan, amount: bigint, v2: UniswapV2Deployment, random: () => number): [Address, Hex, bigint] {
  switch (plan.kind) {
    case 'buy': {
      // 0.05 .. 0.30 ETH, in steps of 0.001
      const value = parseEther('0.05') + BigInt(Math.floor(random() * 250)) * parseEther('0.001')
      return [v2.router, routerCall('swapExactETHForTokens', [0n, [v2.weth, plan.token], plan.trader, maxUint256]), value]
    }
    case 'sell':
      return [v2.router, routerCall('swapExactTokensForETH', [amount, 0n, [plan.token, v2.weth], plan.trader, maxUint256]), 0n]
    case 'route':
      return [
        v2.router,
        routerCall('swapExactTokensForTokens', [amount, 0n, [plan.from, v2.weth, plan.to], plan.trader, maxUint256]),
        0n,
      ]
  }
}

function routerCall(functionName: string, args: readonly unknown[]): Hex {
  return encodeFunctionData({ abi: artifacts.router.abi, functionName, args })
}

function erc20Call(functionName: string, args: readonly unknown[]): Hex {
  return encodeFunctionData({ abi: artifacts.token.abi, functionName, args })
}

/** `eth_sendTransaction` from an account the node signs for; the node fills nonce and fees. */
async function send(node: HardhatNode, from: Address, to: Address | undefined, data: Hex, value: bigint, gas: bigint): Promise<Hash> {
  return (await node.client.request({
    method: 'eth_sendTransaction',
    params: [{ from, ...(to ? { to } : {}), data, value: numberToHex(value), gas: numberToHex(gas) }],
  } as never)) as Hash
}

/** Sends with automine on and checks the receipt. */
export async function sendMined(node: HardhatNode, from: Address, to: Address | undefined, data: Hex, value: bigint, gas: bigint) {
  const hash = await send(node, from, to, data, value, gas)
  const receipt = await node.client.getTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} from ${from} reverted`)
  return receipt
}

export async function deploy(node: HardhatNode, from: Address, artifact: Artifact, args: readonly unknown[]) {
  const data = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args })
  const receipt = await sendMined(node, from, undefined, data, 0n, 8_000_000n)
  if (!receipt.contractAddress) throw new Error(`deployment ${receipt.transactionHash} created no contract`)
  return { address: getAddress(receipt.contractAddress), hash: receipt.transactionHash, block: receipt.blockNumber }
}

/** Small seeded PRNG: the same seed gives the same trade sizes. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = a
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}
