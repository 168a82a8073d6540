import { parseAbi, toEventSelector } from 'viem'
import { malformed, shapeError, topicAddress, word, wordAddress } from './hex.ts'
import type { EventDecoder } from './types.ts'

/**
 * Uniswap v2 factory events. The last PairCreated argument is unnamed in the Uniswap
 * source; it is named here (the name does not enter the selector) so viem decodes it
 * into an object like the others.
 */
export const uniswapV2FactoryAbi = parseAbi([
  'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 allPairsLength)',
])

const PAIR_CREATED = 'PairCreated(address,address,address,uint256)'
export const PAIR_CREATED_TOPIC0 = toEventSelector(uniswapV2FactoryAbi[0])

const pairCreated: EventDecoder = {
  event: PAIR_CREATED,
  topic0: PAIR_CREATED_TOPIC0,
  decode(log) {
    const t = log.topics
    const bad = shapeError(t, log.data, 3, 2)
    if (bad !== null) return malformed(PAIR_CREATED, bad)
    return {
      type: 'v2_pair_created',
      address: log.address.toLowerCase(),
      token0: topicAddress(t[1]),
      token1: topicAddress(t[2]),
      pair: wordAddress(log.data, 0),
      allPairsLength: word(log.data, 1),
    }
  },
}

export const uniswapV2FactoryDecoders: readonly EventDecoder[] = [pairCreated]
