import {
  decodeEventLog,
  encodeEventTopics,
  getAddress,
  type Abi,
  type Address,
  type Client,
  type Hash,
  type Log,
} from 'viem'
import { getBlock, getCode, getLogs, getTransaction, getTransactionReceipt } from 'viem/actions'
import { artifacts } from './hardhat/artifacts.ts'

/**
 * What the service should report about a chain range, computed straight from the node over
 * JSON-RPC with viem and the Uniswap artifacts' ABIs, sharing no code with `pipelines/`
 * (an independent oracle for end-to-end tests). Definitions are DESIGN.md §7:
 *
 * - the pairs followed are the factory's `PairCreated` pairs with WETH on one side;
 * - a swap is one `Swap` event of such a pair; its WETH volume is the WETH side's
 *   `amountIn + amountOut`;
 * - a trader is the `from` of the transaction holding the swap;
 * - a token's deployer is the `from` of the transaction that created its contract;
 * - a token is real in the first block at whose end its cumulative swaps, distinct traders
 *   and WETH volume reach the thresholds (50, 20, 1e18 wei unless told otherwise).
 *
 * Swaps are counted from `fromBlock` through `toBlock`; pairs created before `fromBlock` are
 * found too (`PairCreated` is read from block 0).
 */

export interface RealThresholds {
  swaps: number
  traders: number
  wethVolume: bigint
}

export const DEFAULT_REAL_THRESHOLDS: RealThresholds = { swaps: 50, traders: 20, wethVolume: 10n ** 18n }

export interface ExpectedSwap {
  token: Address
  pair: Address
  blockNumber: bigint
  logIndex: number
  txHash: Hash
  /** `from` of the transaction. */
  trader: Address
  /** WETH into the pair (a buy of the token) and out of it (a sell). */
  wethIn: bigint
  wethOut: bigint
  tokenIn: bigint
  tokenOut: bigint
}

export interface ExpectedToken {
  token: Address
  pair: Address
  /** `from` of the creating transaction; null when it cannot be found. */
  deployer: Address | null
  creationBlock: bigint | null
  creationTx: Hash | null
  swaps: number
  /** Sum over its swaps of WETH in + WETH out, in wei. */
  wethVolume: bigint
  /** Distinct traders, checksummed, sorted. */
  traders: Address[]
  /** First block at whose end all thresholds hold; null if never within the range. */
  realBlock: bigint | null
}

export interface ChainExpectations {
  fromBlock: bigint
  toBlock: bigint
  /** Keyed by checksummed token address; one entry per WETH pair known at `toBlock`. */
  tokens: Map<Address, ExpectedToken>
  /** Every counted swap, in chain order. */
  swaps: ExpectedSwap[]
}

export interface ExpectationQuery {
  fromBlock: bigint
  toBlock: bigint
  weth: Address
  factory: Address
  thresholds?: Partial<RealThresholds>
}

export async function expectedFromChain(client: Client, query: ExpectationQuery): Promise<ChainExpectations> {
  const { fromBlock, toBlock } = query
  const weth = getAddress(query.weth)
  const thresholds = { ...DEFAULT_REAL_THRESHOLDS, ...query.thresholds }
  const factoryAbi = artifacts.factory.abi
  const pairAbi = artifacts.pair.abi

  // Pairs: PairCreated(token0, token1, pair, n) with WETH on one side.
  const created = await getLogs(client, {
    address: query.factory,
    fromBlock: 0n,
    toBlock,
  })
  const pairs = new Map<Address, { token: Address; wethIs0: boolean }>()
  for (const log of created) {
    const event = decode(factoryAbi, log)
    if (event?.eventName !== 'PairCreated') continue
    // The pair count is unnamed in this ABI, so viem decodes the arguments as a list.
    const token0 = getAddress(arg(event.args, 'token0', 0) as string)
    const token1 = getAddress(arg(event.args, 'token1', 1) as string)
    const pair = getAddress(arg(event.args, 'pair', 2) as string)
    if (token0 === weth) pairs.set(pair, { token: token1, wethIs0: true })
    else if (token1 === weth) pairs.set(pair, { token: token0, wethIs0: false })
  }

  // Swaps on those pairs.
  const swapTopic = encodeEventTopics({ abi: pairAbi, eventName: 'Swap' })[0]
  const swapLogs =
    pairs.size === 0
      ? []
      : await getLogs(client, { address: [...pairs.keys()], fromBlock, toBlock }).then((logs) =>
          logs.filter((l) => l.topics[0] === swapTopic),
        )
  swapLogs.sort((a, b) => Number(a.blockNumber! - b.blockNumber!) || a.logIndex! - b.logIndex!)

  const txHashes = [...new Set(swapLogs.map((l) => l.transactionHash!))]
  const senders = new Map<Hash, Address>()
  await Promise.all(
    txHashes.map(async (hash) => senders.set(hash, getAddress((await getTransaction(client, { hash })).from))),
  )

  const swaps: ExpectedSwap[] = swapLogs.map((log) => {
    const event = decode(pairAbi, log)
    if (event?.eventName !== 'Swap') throw new Error(`log ${log.transactionHash}#${log.logIndex} is not a Swap`)
    const a = {
      amount0In: arg(event.args, 'amount0In', 1) as bigint,
      amount1In: arg(event.args, 'amount1In', 2) as bigint,
      amount0Out: arg(event.args, 'amount0Out', 3) as bigint,
      amount1Out: arg(event.args, 'amount1Out', 4) as bigint,
    }
    const pair = getAddress(log.address)
    const { token, wethIs0 } = pairs.get(pair)!
    return {
      token,
      pair,
      blockNumber: log.blockNumber!,
      logIndex: log.logIndex!,
      txHash: log.transactionHash!,
      trader: senders.get(log.transactionHash!)!,
      wethIn: wethIs0 ? a.amount0In : a.amount1In,
      wethOut: wethIs0 ? a.amount0Out : a.amount1Out,
      tokenIn: wethIs0 ? a.amount1In : a.amount0In,
      tokenOut: wethIs0 ? a.amount1Out : a.amount0Out,
    }
  })

  // Per token, cumulative through each block; the real block is checked at block ends.
  const tokens = new Map<Address, ExpectedToken>()
  const traderSets = new Map<Address, Set<Address>>()
  const creations = await Promise.all([...pairs.values()].map(({ token }) => findCreation(client, token, toBlock)))
  for (const [i, [pair, { token }]] of [...pairs.entries()].entries()) {
    tokens.set(token, {
      token,
      pair,
      ...creations[i],
      swaps: 0,
      wethVolume: 0n,
      traders: [],
      realBlock: null,
    })
    traderSets.set(token, new Set())
  }
  for (let i = 0; i < swaps.length; ) {
    const block = swaps[i].blockNumber
    const touched = new Set<Address>()
    for (; i < swaps.length && swaps[i].blockNumber === block; i++) {
      const s = swaps[i]
      const entry = tokens.get(s.token)!
      entry.swaps += 1
      entry.wethVolume += s.wethIn + s.wethOut
      traderSets.get(s.token)!.add(s.trader)
      touched.add(s.token)
    }
    for (const token of touched) {
      const entry = tokens.get(token)!
      if (
        entry.realBlock === null &&
        entry.swaps >= thresholds.swaps &&
        traderSets.get(token)!.size >= thresholds.traders &&
        entry.wethVolume >= thresholds.wethVolume
      ) {
        entry.realBlock = block
      }
    }
  }
  for (const [token, set] of traderSets) tokens.get(token)!.traders = [...set].sort()

  return { fromBlock, toBlock, tokens, swaps }
}

function decode(abi: Abi, log: Log): { eventName: string; args: unknown } | undefined {
  try {
    return decodeEventLog({ abi, data: log.data, topics: log.topics, strict: true })
  } catch {
    return undefined
  }
}

/** An event argument by name, or by position when viem decoded the arguments as a list. */
function arg(args: unknown, name: string, index: number): unknown {
  const value = Array.isArray(args) ? args[index] : (args as Record<string, unknown>)[name]
  if (value === undefined) throw new Error(`event argument ${name} missing`)
  return value
}

/**
 * The transaction that created `token`: the block where its code first appears (binary
 * search on `eth_getCode`), then in that block the contract-creation transaction whose receipt
 * names it, else (created by another contract) the first transaction with a log from it.
 */
async function findCreation(
  client: Client,
  token: Address,
  toBlock: bigint,
): Promise<{ deployer: Address | null; creationBlock: bigint | null; creationTx: Hash | null }> {
  const none = { deployer: null, creationBlock: null, creationTx: null }
  const hasCode = async (blockNumber: bigint) => ((await getCode(client, { address: token, blockNumber })) ?? '0x') !== '0x'
  if (!(await hasCode(toBlock))) return none
  let lo = 0n // no code at lo (genesis holds no token here) ... unless it does:
  if (await hasCode(0n)) return none
  let hi = toBlock // code at hi
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n
    if (await hasCode(mid)) hi = mid
    else lo = mid
  }
  const block = await getBlock(client, { blockNumber: hi, includeTransactions: true })
  const receipts = await Promise.all(block.transactions.map((tx) => getTransactionReceipt(client, { hash: tx.hash })))
  const direct = receipts.find((r) => r.contractAddress && getAddress(r.contractAddress) === token)
  const viaContract = receipts.find((r) => r.logs.some((l) => getAddress(l.address) === token))
  const receipt = direct ?? viaContract
  if (!receipt) return { ...none, creationBlock: hi }
  const tx = block.transactions.find((t) => t.hash === receipt.transactionHash)!
  return { deployer: getAddress(tx.from), creationBlock: hi, creationTx: receipt.transactionHash }
}
