import { type AbiEvent, type AbiParameter, encodeEventTopics, type Hex } from 'viem'
import { abiWord, encodeStatic } from './abi-words.ts'
import { erc20Abi } from '../decode/erc20.ts'
import type { DecodedEvent, MalformedLog } from '../decode/types.ts'
import { uniswapV2FactoryAbi } from '../decode/uniswap-v2-factory.ts'
import { uniswapV2PairAbi } from '../decode/uniswap-v2-pair.ts'
import { uniswapV3FactoryAbi } from '../decode/uniswap-v3-factory.ts'
import { uniswapV3PoolAbi } from '../decode/uniswap-v3-pool.ts'
import { uniswapV4PoolManagerAbi } from '../decode/uniswap-v4-pool-manager.ts'

/**
 * A log the world emits, before ABI encoding: the event the decoders would read back from it
 * (any `DecodedEvent` but a malformed one). The world decides what happens; this file turns
 * it into the topics and data a node would return: topic0 by viem's encoder, the words by our
 * static encoder (abi-words.ts), which a test holds equal to viem's, so the production decoders
 * are tested against an independent implementation.
 */
export type LogSpec = Exclude<DecodedEvent, MalformedLog>

export interface EncodedLog {
  address: string
  topics: string[]
  data: string
}

const [transferEvent] = erc20Abi
const [pairCreatedEvent] = uniswapV2FactoryAbi
const [swapEvent, syncEvent, mintEvent, burnEvent] = uniswapV2PairAbi

function dataParams(event: AbiEvent): readonly AbiParameter[] {
  return event.inputs.filter((p) => !p.indexed)
}
const transferData = dataParams(transferEvent)
const pairCreatedData = dataParams(pairCreatedEvent)
const swapData = dataParams(swapEvent)
const syncData = dataParams(syncEvent)
const mintData = dataParams(mintEvent)
const burnData = dataParams(burnEvent)
const [v3PoolCreatedEvent] = uniswapV3FactoryAbi
const [v3SwapEvent, v3MintEvent, v3BurnEvent] = uniswapV3PoolAbi
const [v4InitializeEvent, v4SwapEvent, v4ModifyLiquidityEvent] = uniswapV4PoolManagerAbi
const v3PoolCreatedData = dataParams(v3PoolCreatedEvent)
const v3SwapData = dataParams(v3SwapEvent)
const v3MintData = dataParams(v3MintEvent)
const v3BurnData = dataParams(v3BurnEvent)
const v4InitializeData = dataParams(v4InitializeEvent)
const v4SwapData = dataParams(v4SwapEvent)
const v4ModifyLiquidityData = dataParams(v4ModifyLiquidityEvent)

// encodeEventTopics re-hashes the event signature on every call (about 40 us here), so
// topic0 is encoded once per event and each indexed argument is encoded the way
// encodeEventTopics encodes it: the ABI word of that one parameter.
const topic0 = (abi: readonly AbiEvent[], eventName: string) =>
  (encodeEventTopics({ abi, eventName } as Parameters<typeof encodeEventTopics>[0]) as Hex[])[0]
const TRANSFER = topic0(erc20Abi, 'Transfer')
const PAIR_CREATED = topic0(uniswapV2FactoryAbi, 'PairCreated')
const SWAP = topic0(uniswapV2PairAbi, 'Swap')
const SYNC = topic0(uniswapV2PairAbi, 'Sync')
const MINT = topic0(uniswapV2PairAbi, 'Mint')
const BURN = topic0(uniswapV2PairAbi, 'Burn')
const V3_POOL_CREATED = topic0(uniswapV3FactoryAbi, 'PoolCreated')
const V3_SWAP = topic0(uniswapV3PoolAbi, 'Swap')
const V3_MINT = topic0(uniswapV3PoolAbi, 'Mint')
const V3_BURN = topic0(uniswapV3PoolAbi, 'Burn')
const V4_INITIALIZE = topic0(uniswapV4PoolManagerAbi, 'Initialize')
const V4_SWAP = topic0(uniswapV4PoolManagerAbi, 'Swap')
const V4_MODIFY_LIQUIDITY = topic0(uniswapV4PoolManagerAbi, 'ModifyLiquidity')

const addressTopic = (address: string) => `0x${abiWord('address', address)}`
const int24Topic = (value: number) => `0x${abiWord('int24', value)}`
const uint24Topic = (value: number) => `0x${abiWord('uint24', value)}`

/** ABI-encode one world log. */
export function encodeLog(spec: LogSpec): EncodedLog {
  switch (spec.type) {
    case 'erc20_transfer':
      return {
        address: spec.address,
        topics: [TRANSFER, addressTopic(spec.from), addressTopic(spec.to)],
        data: encodeStatic(transferData, [spec.value]),
      }
    case 'v2_pair_created':
      return {
        address: spec.address,
        topics: [PAIR_CREATED, addressTopic(spec.token0), addressTopic(spec.token1)],
        data: encodeStatic(pairCreatedData, [spec.pair, spec.allPairsLength]),
      }
    case 'v2_swap':
      return {
        address: spec.address,
        topics: [SWAP, addressTopic(spec.sender), addressTopic(spec.to)],
        data: encodeStatic(swapData, [spec.amount0In, spec.amount1In, spec.amount0Out, spec.amount1Out]),
      }
    case 'v2_sync':
      return {
        address: spec.address,
        topics: [SYNC],
        data: encodeStatic(syncData, [spec.reserve0, spec.reserve1]),
      }
    case 'v2_mint':
      return {
        address: spec.address,
        topics: [MINT, addressTopic(spec.sender)],
        data: encodeStatic(mintData, [spec.amount0, spec.amount1]),
      }
    case 'v2_burn':
      return {
        address: spec.address,
        topics: [BURN, addressTopic(spec.sender), addressTopic(spec.to)],
        data: encodeStatic(burnData, [spec.amount0, spec.amount1]),
      }
    case 'v3_pool_created':
      return {
        address: spec.address,
        topics: [V3_POOL_CREATED, addressTopic(spec.token0), addressTopic(spec.token1), uint24Topic(spec.fee)],
        data: encodeStatic(v3PoolCreatedData, [spec.tickSpacing, spec.pool]),
      }
    case 'v3_swap':
      return {
        address: spec.address,
        topics: [V3_SWAP, addressTopic(spec.sender), addressTopic(spec.recipient)],
        data: encodeStatic(v3SwapData, [spec.amount0, spec.amount1, spec.sqrtPriceX96, spec.liquidity, spec.tick]),
      }
    case 'v3_mint':
      return {
        address: spec.address,
        topics: [V3_MINT, addressTopic(spec.owner), int24Topic(spec.tickLower), int24Topic(spec.tickUpper)],
        data: encodeStatic(v3MintData, [spec.sender, spec.amount, spec.amount0, spec.amount1]),
      }
    case 'v3_burn':
      return {
        address: spec.address,
        topics: [V3_BURN, addressTopic(spec.owner), int24Topic(spec.tickLower), int24Topic(spec.tickUpper)],
        data: encodeStatic(v3BurnData, [spec.amount, spec.amount0, spec.amount1]),
      }
    case 'v4_initialize':
      return {
        address: spec.address,
        topics: [V4_INITIALIZE, spec.poolId, addressTopic(spec.currency0), addressTopic(spec.currency1)],
        data: encodeStatic(v4InitializeData, [spec.fee, spec.tickSpacing, spec.hooks, spec.sqrtPriceX96, spec.tick]),
      }
    case 'v4_swap':
      return {
        address: spec.address,
        topics: [V4_SWAP, spec.poolId, addressTopic(spec.sender)],
        data: encodeStatic(v4SwapData, [spec.amount0, spec.amount1, spec.sqrtPriceX96, spec.liquidity, spec.tick, spec.fee]),
      }
    case 'v4_modify_liquidity':
      return {
        address: spec.address,
        topics: [V4_MODIFY_LIQUIDITY, spec.poolId, addressTopic(spec.sender)],
        data: encodeStatic(v4ModifyLiquidityData, [spec.tickLower, spec.tickUpper, spec.liquidityDelta, spec.salt]),
      }
  }
}
