import { parseAbi, toEventSelector } from 'viem'
import { int24, malformed, rawTopic, rawWord, shapeError, signedWord, topicAddress, word, wordAddress } from './hex.ts'
import type { EventDecoder } from './types.ts'

/**
 * Uniswap v3 pool events. Their topic0s differ from v2's Swap/Mint/Burn (other signatures),
 * so the two families share no dispatch key.
 */
export const uniswapV3PoolAbi = parseAbi([
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
  'event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  'event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
])

const SWAP = 'Swap(address,address,int256,int256,uint160,uint128,int24)'
const MINT = 'Mint(address,address,int24,int24,uint128,uint256,uint256)'
const BURN = 'Burn(address,int24,int24,uint128,uint256,uint256)'

export const V3_SWAP_TOPIC0 = toEventSelector(uniswapV3PoolAbi[0])
export const V3_MINT_TOPIC0 = toEventSelector(uniswapV3PoolAbi[1])
export const V3_BURN_TOPIC0 = toEventSelector(uniswapV3PoolAbi[2])

// uint160/uint128 words are read whole, as viem and v2's uint112 reserves are; only the
// 24-bit fields are range-checked (see `int24` in hex.ts).
const swap: EventDecoder = {
  event: SWAP,
  topic0: V3_SWAP_TOPIC0,
  decode(log) {
    const t = log.topics
    const d = log.data
    const bad = shapeError(t, d, 3, 5)
    if (bad !== null) return malformed(SWAP, bad)
    const tick = int24(rawWord(d, 4))
    if (tick === null) return malformed(SWAP, 'word 4 (tick) is not an int24')
    return {
      type: 'v3_swap',
      address: log.address.toLowerCase(),
      sender: topicAddress(t[1]),
      recipient: topicAddress(t[2]),
      amount0: signedWord(d, 0),
      amount1: signedWord(d, 1),
      sqrtPriceX96: word(d, 2),
      liquidity: word(d, 3),
      tick,
    }
  },
}

/** The two indexed ticks of Mint/Burn (topics 2 and 3), or why they are not int24s. */
function ticks(t: readonly string[]): [number, number] | string {
  const lower = int24(rawTopic(t[2]))
  if (lower === null) return 'topic 2 (tickLower) is not an int24'
  const upper = int24(rawTopic(t[3]))
  if (upper === null) return 'topic 3 (tickUpper) is not an int24'
  return [lower, upper]
}

const mint: EventDecoder = {
  event: MINT,
  topic0: V3_MINT_TOPIC0,
  decode(log) {
    const t = log.topics
    const d = log.data
    const bad = shapeError(t, d, 4, 4)
    if (bad !== null) return malformed(MINT, bad)
    const range = ticks(t)
    if (typeof range === 'string') return malformed(MINT, range)
    return {
      type: 'v3_mint',
      address: log.address.toLowerCase(),
      sender: wordAddress(d, 0),
      owner: topicAddress(t[1]),
      tickLower: range[0],
      tickUpper: range[1],
      amount: word(d, 1),
      amount0: word(d, 2),
      amount1: word(d, 3),
    }
  },
}

const burn: EventDecoder = {
  event: BURN,
  topic0: V3_BURN_TOPIC0,
  decode(log) {
    const t = log.topics
    const d = log.data
    const bad = shapeError(t, d, 4, 3)
    if (bad !== null) return malformed(BURN, bad)
    const range = ticks(t)
    if (typeof range === 'string') return malformed(BURN, range)
    return {
      type: 'v3_burn',
      address: log.address.toLowerCase(),
      owner: topicAddress(t[1]),
      tickLower: range[0],
      tickUpper: range[1],
      amount: word(d, 0),
      amount0: word(d, 1),
      amount1: word(d, 2),
    }
  },
}

export const uniswapV3PoolDecoders: readonly EventDecoder[] = [swap, mint, burn]
