import type { ChainBlock, ChainLog, ContractCreation } from '../records/chain-block.ts'
import { type SimContracts, simContracts } from './contracts.ts'
import { encodeLog } from './encode.ts'
import { simTokenMetadata } from './token-names.ts'
import { createRng, seedToU32 } from './prng.ts'
import { createWorld, DEFAULT_WORLD_PARAMS, type Fate, type SimTrade, type WorldParams } from './world.ts'

export interface ChainSimulatorOptions {
  chainId: number
  seed: number | string
  /** Unix seconds of block 0. Default 2025-01-01T00:00:00Z (not "now": output must not depend on the clock). */
  startTime?: number
  /** Seconds between blocks. Default 2. */
  blockTimeSec?: number
  /** The first block `nextBlock()` returns (>= 1). Earlier blocks are replayed, not emitted. Default 1. */
  fromBlock?: number
  params?: Partial<WorldParams>
}

/** A token launched in a simulated block, with the fate the world gave it at launch. */
export interface SimLaunch {
  token: string
  symbol: string
  /** Ground truth of the simulation: never on the bus, only for simulators layered on this one. */
  fate: Fate
  launchBlock: number
}

export interface ChainSimulator {
  readonly chainId: number
  /** WETH and the v2/v3/v4 contracts of this chain: what a processor must be told to follow. */
  readonly contracts: SimContracts
  /** Number of the block the next `nextBlock()` returns. */
  readonly nextNumber: number
  /** Generate, encode and return the next block. */
  nextBlock(): ChainBlock
  /**
   * Advance without emitting so that the next block returned is `n` (never backwards). No ABI
   * encoding is done; `visit`, when given, sees each skipped block's number, time, log addresses
   * and launches: all a simulator layered on this one (the social world) reads of a block.
   */
  skipTo(n: number, visit?: (block: BlockSummary, launched: readonly SimLaunch[]) => void): void
  /** The hash of block `n` (block 0 is the empty genesis). */
  blockHash(n: number): string
  /** The tokens created in the block the last `nextBlock()` returned (empty after `skipTo`). */
  readonly launched: readonly SimLaunch[]
  /** Ground truth: the swap legs of the block the last `nextBlock()` returned (empty after `skipTo`). */
  readonly trades: readonly SimTrade[]
}

/** A block as `skipTo` shows it: the parts that need no encoding. */
export interface BlockSummary {
  number: number
  timestamp: number
  logs: Array<{ address: string }>
}

export const DEFAULT_START_TIME = 1_735_689_600
export const DEFAULT_BLOCK_TIME_SEC = 2

const ZERO_HASH = '0x' + '0'.repeat(64)
const NO_LAUNCHES: readonly SimLaunch[] = Object.freeze([])

/**
 * A deterministic simulated EVM chain: same options, byte-identical blocks. Block n's hash
 * is a function of (seed, chain, n) and its parentHash is block n-1's, so a resumed
 * simulator and one that ran from genesis agree on every hash.
 */
export function createChainSimulator(opts: ChainSimulatorOptions): ChainSimulator {
  const { chainId, seed } = opts
  const startTime = opts.startTime ?? DEFAULT_START_TIME
  const blockTimeSec = opts.blockTimeSec ?? DEFAULT_BLOCK_TIME_SEC
  const contracts = simContracts(chainId)
  const world = createWorld(createRng(`chain-sim/${chainId}/${seed}`), contracts, {
    ...DEFAULT_WORLD_PARAMS,
    ...opts.params,
  })
  const hashSeed = seedToU32(`chain-sim-hash/${chainId}/${seed}`)
  const blockHash = (n: number) => (n < 0 ? ZERO_HASH : mixHash(hashSeed, 0, n, 0))
  let next = 1
  let launched: readonly SimLaunch[] = NO_LAUNCHES
  let trades: readonly SimTrade[] = []

  function skipTo(n: number, visit?: (block: BlockSummary, launched: readonly SimLaunch[]) => void): void {
    if (!Number.isInteger(n) || n < next) throw new RangeError(`skipTo(${n}): the simulator is already at block ${next}`)
    while (next < n) {
      const number = next++
      const txs = world.step(number)
      if (visit === undefined) continue
      const logs: Array<{ address: string }> = []
      for (const tx of txs) for (const spec of tx.logs) logs.push({ address: spec.address })
      visit({ number, timestamp: startTime + number * blockTimeSec, logs }, launchesOf(number, (address) => simTokenMetadata(address, seed).symbol))
    }
    launched = NO_LAUNCHES
    trades = []
  }

  /** The launches of the block `world.step` just produced; `symbolOf` names a created token. */
  function launchesOf(number: number, symbolOf: (address: string) => string): readonly SimLaunch[] {
    const fates = world.launched()
    return fates.length === 0 ? NO_LAUNCHES : fates.map(({ address, fate }) => ({ token: address, symbol: symbolOf(address), fate, launchBlock: number }))
  }

  function nextBlock(): ChainBlock {
    const number = next++
    const txs = world.step(number)
    const hash = blockHash(number)
    const creations: ContractCreation[] = []
    const logs: ChainLog[] = []
    const blockTrades: SimTrade[] = []
    for (let txIndex = 0; txIndex < txs.length; txIndex++) {
      const tx = txs[txIndex]
      if (tx.trades) blockTrades.push(...tx.trades)
      const txHash = mixHash(hashSeed, 1, number, txIndex)
      if (tx.creation !== undefined) creations.push({ txHash, txIndex, address: tx.creation, deployer: tx.from, erc20: simTokenMetadata(tx.creation, seed) })
      for (const spec of tx.logs) {
        const { address, topics, data } = encodeLog(spec)
        logs.push({ logIndex: logs.length, txHash, txIndex, txFrom: tx.from, address, topics, data })
      }
    }
    launched = launchesOf(number, (address) => creations.find((c) => c.address === address)!.erc20!.symbol)
    trades = blockTrades
    return {
      chainId,
      number,
      hash,
      parentHash: blockHash(number - 1),
      timestamp: startTime + number * blockTimeSec,
      creations,
      logs,
    }
  }

  if (opts.fromBlock !== undefined) skipTo(opts.fromBlock)

  return {
    chainId,
    contracts,
    get nextNumber() {
      return next
    },
    nextBlock,
    skipTo,
    blockHash,
    get launched() {
      return launched
    },
    get trades() {
      return trades
    },
  }
}

/**
 * A 32-byte pseudo-hash of (seed, domain, a, b): unique in practice and cheap (keccak costs
 * tens of microseconds here, and a block has dozens of transactions). Not collision-resistant
 * against an adversary, which a simulation does not need.
 */
function mixHash(seed: number, domain: number, a: number, b: number): string {
  const aHi = Math.floor(a / 2 ** 32)
  let out = '0x'
  // Eight lanes, each its own 32-bit hash of the whole input, so two inputs share a hash
  // only if they collide in every lane.
  for (let lane = 0; lane < 8; lane++) {
    let h = mix(seed ^ Math.imul(lane * 8 + domain + 1, 0x9e3779b9))
    h = mix(h ^ (a >>> 0))
    h = mix(h ^ aHi)
    h = mix(h ^ b)
    out += BYTE_HEX[h >>> 24]! + BYTE_HEX[(h >>> 16) & 255]! + BYTE_HEX[(h >>> 8) & 255]! + BYTE_HEX[h & 255]!
  }
  return out
}

/**
 * Two hex digits per byte value: a lane's eight digits from four lookups. Formatting each lane with
 * toString(16) and padStart was most of mixHash, a hash per block and per transaction, and mixHash
 * was about a seventh of a simulator's thread over the default world's backfill (`--cpu-prof`).
 */
const BYTE_HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'))

function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b)
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35)
  return x ^ (x >>> 16)
}
