import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { encodeDeployData, encodeFunctionData, getAddress, maxUint256, numberToHex, parseAbiItem, parseEther, toEventSelector, type Abi, type Address, type Hash, type Hex } from 'viem'
import type { HardhatNode } from '../../infra/hardhat/node.ts'
import { deployUniswapV2, sendMined, type UniswapV2Deployment } from './chain-scenario.ts'
import { artifacts } from './hardhat/artifacts.ts'

/**
 * Chain 5042 on a real Hardhat node, made of real transactions: Uniswap v2 (the npm artifacts),
 * two launchpads of ours (`arc/Launchpad.sol`, compiled here with the `solc` package) that create
 * ERC20 tokens inside their own transactions, a relay that launches on a pad for its caller (so
 * only the pad's log ties the launch to it), tokens deployed directly, pools made with
 * `addLiquidityETH`, buys through the router and plain transfers.
 */

type Compiled = { abi: Abi; bytecode: Hex }
const require = createRequire(import.meta.url)
let compiled: Record<'PadToken' | 'Launchpad' | 'Relay', Compiled> | undefined

export function compileLaunchpad(): Record<'PadToken' | 'Launchpad' | 'Relay', Compiled> {
  if (compiled) return compiled
  const solc = require('solc') as { compile(input: string): string }
  const source = readFileSync(fileURLToPath(new URL('./arc/Launchpad.sol', import.meta.url)), 'utf8')
  const input = {
    language: 'Solidity',
    sources: { 'Launchpad.sol': { content: source } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
  }
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  const c = out.contracts['Launchpad.sol']!
  const pick = (n: string): Compiled => ({ abi: c[n]!.abi, bytecode: `0x${c[n]!.evm.bytecode.object}` as Hex })
  compiled = { PadToken: pick('PadToken'), Launchpad: pick('Launchpad'), Relay: pick('Relay') }
  return compiled
}

export interface ArcDeployment {
  v2: UniswapV2Deployment
  pads: [Address, Address]
  relay: Address
}

/** A launch as the test made it: what the service must find on the chain. */
export interface ArcLaunchFact {
  token: Address
  symbol: string
  name: string
  deployer: Address
  /** The pad the launch went through (null: deployed directly). */
  via: Address | null
  txHash: Hash
  block: bigint
  txIndex: number
}

const SUPPLY = parseEther('1000000')
const GAS = 5_000_000n

async function deployContract(node: HardhatNode, from: Address, c: Compiled, args: readonly unknown[]): Promise<Address> {
  const r = await sendMined(node, from, undefined, encodeDeployData({ abi: c.abi, bytecode: c.bytecode, args }), 0n, GAS)
  return getAddress(r.contractAddress!)
}

export async function deployArc(node: HardhatNode): Promise<ArcDeployment> {
  const c = compileLaunchpad()
  const v2 = await deployUniswapV2(node)
  const from = node.accounts[0]
  const pads: [Address, Address] = [await deployContract(node, from, c.Launchpad, []), await deployContract(node, from, c.Launchpad, [])]
  const relay = await deployContract(node, from, c.Relay, [])
  return { v2, pads, relay }
}

const launchedEvent = parseAbiItem('event Launched(address indexed token, address indexed owner, string symbol)')

/** The token a pad launch created: from the pad's own log in the receipt (the test knows the pad's ABI; the service does not). */
async function padToken(node: HardhatNode, hash: Hash, pad: Address): Promise<Address> {
  const receipt = await node.client.getTransactionReceipt({ hash })
  const log = receipt.logs.find((l) => l.address.toLowerCase() === pad.toLowerCase() && l.topics[0] === toEventSelector(launchedEvent))
  return getAddress(`0x${log!.topics[1]!.slice(26)}`)
}

export type LaunchPlan =
  | { kind: 'pad'; pad: Address; from: Address; symbol: string }
  | { kind: 'relay'; pad: Address; from: Address; symbol: string }
  | { kind: 'direct'; from: Address; symbol: string }

function launchTx(d: ArcDeployment, p: LaunchPlan): { to: Address | undefined; data: Hex } {
  const c = compileLaunchpad()
  const name = `${p.symbol} Token`
  if (p.kind === 'pad') return { to: p.pad, data: encodeFunctionData({ abi: c.Launchpad.abi, functionName: 'launch', args: [name, p.symbol, SUPPLY] }) }
  if (p.kind === 'relay') return { to: d.relay, data: encodeFunctionData({ abi: c.Relay.abi, functionName: 'launchOn', args: [p.pad, name, p.symbol, SUPPLY] }) }
  return { to: undefined, data: encodeDeployData({ abi: c.PadToken.abi, bytecode: c.PadToken.bytecode, args: [name, p.symbol, SUPPLY, p.from] }) }
}

/** Launch these in one block (automine paused while they are sent), in order. */
export async function launchInOneBlock(node: HardhatNode, d: ArcDeployment, plans: LaunchPlan[]): Promise<ArcLaunchFact[]> {
  const hashes: Hash[] = []
  await node.client.setAutomine(false)
  try {
    for (const p of plans) {
      const { to, data } = launchTx(d, p)
      hashes.push((await node.client.request({ method: 'eth_sendTransaction', params: [{ from: p.from, ...(to ? { to } : {}), data, gas: numberToHex(GAS) }] } as never)) as Hash)
    }
    await node.mine(1)
  } finally {
    await node.client.setAutomine(true)
  }
  const facts: ArcLaunchFact[] = []
  for (const [i, p] of plans.entries()) {
    const receipt = await node.client.getTransactionReceipt({ hash: hashes[i]! })
    if (receipt.status !== 'success') throw new Error(`launch ${p.symbol} reverted`)
    const token = p.kind === 'direct' ? getAddress(receipt.contractAddress!) : await padToken(node, hashes[i]!, p.pad)
    facts.push({ token, symbol: p.symbol, name: `${p.symbol} Token`, deployer: p.from, via: p.kind === 'direct' ? null : p.pad, txHash: hashes[i]!, block: receipt.blockNumber, txIndex: receipt.transactionIndex })
  }
  return facts
}

export async function launch(node: HardhatNode, d: ArcDeployment, plan: LaunchPlan): Promise<ArcLaunchFact> {
  return (await launchInOneBlock(node, d, [plan]))[0]!
}

/** A token/WETH pair through the router (the factory emits PairCreated), seeded by the token's holder. */
export async function addPool(node: HardhatNode, d: ArcDeployment, token: Address, holder: Address, eth = '5'): Promise<void> {
  const c = compileLaunchpad()
  await sendMined(node, holder, token, encodeFunctionData({ abi: c.PadToken.abi, functionName: 'approve', args: [d.v2.router, maxUint256] }), 0n, 100_000n)
  await sendMined(
    node, holder, d.v2.router,
    encodeFunctionData({ abi: artifacts.router.abi, functionName: 'addLiquidityETH', args: [token, SUPPLY / 2n, 0n, 0n, holder, maxUint256] }),
    parseEther(eth), GAS,
  )
}

export async function buy(node: HardhatNode, d: ArcDeployment, token: Address, trader: Address, eth = '0.1'): Promise<void> {
  await sendMined(
    node, trader, d.v2.router,
    encodeFunctionData({ abi: artifacts.router.abi, functionName: 'swapExactETHForTokens', args: [0n, [d.v2.weth, token], trader, maxUint256] }),
    parseEther(eth), 400_000n,
  )
}

export async function transfer(node: HardhatNode, token: Address, from: Address, to: Address, amount: bigint): Promise<void> {
  const c = compileLaunchpad()
  await sendMined(node, from, token, encodeFunctionData({ abi: c.PadToken.abi, functionName: 'transfer', args: [to, amount] }), 0n, 100_000n)
}
