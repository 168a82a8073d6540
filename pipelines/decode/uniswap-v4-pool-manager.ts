import { parseAbi, toEventSelector } from 'viem'
import {
  int24,
  malformed,
  rawWord,
  shapeError,
  signedWord,
  topicAddress,
  topicBytes32,
  uint24,
  word,
  wordAddress,
  wordBytes32,
} from './hex.ts'
import type { EventDecoder } from './types.ts'

/**
 * Uniswap v4 PoolManager events (one singleton contract holds every pool; a pool is named by
 * its bytes32 id). `PoolId`, `Currency` and `IHooks` are written as their ABI types, which is
 * what the selector hashes. v4's Swap has another signature than v3's, so another topic0.
 */
export const uniswapV4PoolManagerAbi = parseAbi([
  'event Initialize(bytes32 indexed id, address indexed currency0, address indexed currency1, uint24 fee, int24 tickSpacing, address hooks, uint160 sqrtPriceX96, int24 tick)',
  'event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)',
  'event ModifyLiquidity(bytes32 indexed id, address indexed sender, int24 tickLower, int24 tickUpper, int256 liquidityDelta, bytes32 salt)',
])

const INITIALIZE = 'Initialize(bytes32,address,address,uint24,int24,address,uint160,int24)'
const SWAP = 'Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24)'
const MODIFY_LIQUIDITY = 'ModifyLiquidity(bytes32,address,int24,int24,int256,bytes32)'

export const V4_INITIALIZE_TOPIC0 = toEventSelector(uniswapV4PoolManagerAbi[0])
export const V4_SWAP_TOPIC0 = toEventSelector(uniswapV4PoolManagerAbi[1])
export const V4_MODIFY_LIQUIDITY_TOPIC0 = toEventSelector(uniswapV4PoolManagerAbi[2])

const initialize: EventDecoder = {
  event: INITIALIZE,
  topic0: V4_INITIALIZE_TOPIC0,
  decode(log) {
    const t = log.topics
    const d = log.data
    const bad = shapeError(t, d, 4, 5)
    if (bad !== null) return malformed(INITIALIZE, bad)
    const fee = uint24(rawWord(d, 0))
    if (fee === null) return malformed(INITIALIZE, 'word 0 (fee) is not a uint24')
    const tickSpacing = int24(rawWord(d, 1))
    if (tickSpacing === null) return malformed(INITIALIZE, 'word 1 (tickSpacing) is not an int24')
    const tick = int24(rawWord(d, 4))
    if (tick === null) return malformed(INITIALIZE, 'word 4 (tick) is not an int24')
    return {
      type: 'v4_initialize',
      address: log.address.toLowerCase(),
      poolId: topicBytes32(t[1]),
      currency0: topicAddress(t[2]),
      currency1: topicAddress(t[3]),
      fee,
      tickSpacing,
      hooks: wordAddress(d, 2),
      sqrtPriceX96: word(d, 3),
      tick,
    }
  },
}

// int128 amounts are read as a whole signed word, as viem does (a word outside int128 decodes
// to its int256 value rather than being rejected).
const swap: EventDecoder = {
  event: SWAP,
  topic0: V4_SWAP_TOPIC0,
  decode(log) {
    const t = log.topics
    const d = log.data
    const bad = shapeError(t, d, 3, 6)
    if (bad !== null) return malformed(SWAP, bad)
    const tick = int24(rawWord(d, 4))
    if (tick === null) return malformed(SWAP, 'word 4 (tick) is not an int24')
    const fee = uint24(rawWord(d, 5))
    if (fee === null) return malformed(SWAP, 'word 5 (fee) is not a uint24')
    return {
      type: 'v4_swap',
      address: log.address.toLowerCase(),
      poolId: topicBytes32(t[1]),
      sender: topicAddress(t[2]),
      amount0: signedWord(d, 0),
      amount1: signedWord(d, 1),
      sqrtPriceX96: word(d, 2),
      liquidity: word(d, 3),
      tick,
      fee,
    }
  },
}

const modifyLiquidity: EventDecoder = {
  event: MODIFY_LIQUIDITY,
  topic0: V4_MODIFY_LIQUIDITY_TOPIC0,
  decode(log) {
    const t = log.topics
    const d = log.data
    const bad = shapeError(t, d, 3, 4)
    if (bad !== null) return malformed(MODIFY_LIQUIDITY, bad)
    const tickLower = int24(rawWord(d, 0))
    if (tickLower === null) return malformed(MODIFY_LIQUIDITY, 'word 0 (tickLower) is not an int24')
    const tickUpper = int24(rawWord(d, 1))
    if (tickUpper === null) return malformed(MODIFY_LIQUIDITY, 'word 1 (tickUpper) is not an int24')
    return {
      type: 'v4_modify_liquidity',
      address: log.address.toLowerCase(),
      poolId: topicBytes32(t[1]),
      sender: topicAddress(t[2]),
      tickLower,
      tickUpper,
      liquidityDelta: signedWord(d, 2),
      salt: wordBytes32(d, 3),
    }
  },
}

export const uniswapV4PoolManagerDecoders: readonly EventDecoder[] = [initialize, swap, modifyLiquidity]
