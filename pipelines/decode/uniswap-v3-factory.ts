import { parseAbi, toEventSelector } from 'viem'
import { int24, malformed, rawTopic, rawWord, shapeError, topicAddress, uint24, wordAddress } from './hex.ts'
import type { EventDecoder } from './types.ts'

/** Uniswap v3 factory events. */
export const uniswapV3FactoryAbi = parseAbi([
  'event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)',
])

const POOL_CREATED = 'PoolCreated(address,address,uint24,int24,address)'
export const V3_POOL_CREATED_TOPIC0 = toEventSelector(uniswapV3FactoryAbi[0])

const poolCreated: EventDecoder = {
  event: POOL_CREATED,
  topic0: V3_POOL_CREATED_TOPIC0,
  decode(log) {
    const t = log.topics
    const d = log.data
    const bad = shapeError(t, d, 4, 2)
    if (bad !== null) return malformed(POOL_CREATED, bad)
    const fee = uint24(rawTopic(t[3]))
    if (fee === null) return malformed(POOL_CREATED, 'topic 3 (fee) is not a uint24')
    const tickSpacing = int24(rawWord(d, 0))
    if (tickSpacing === null) return malformed(POOL_CREATED, 'word 0 (tickSpacing) is not an int24')
    return {
      type: 'v3_pool_created',
      address: log.address.toLowerCase(),
      token0: topicAddress(t[1]),
      token1: topicAddress(t[2]),
      fee,
      tickSpacing,
      pool: wordAddress(d, 1),
    }
  },
}

export const uniswapV3FactoryDecoders: readonly EventDecoder[] = [poolCreated]
