import { parseAbi, toEventSelector } from 'viem'
import { malformed, shapeError, topicAddress, word } from './hex.ts'
import type { EventDecoder } from './types.ts'

/** Uniswap v2 pair events (`uint` written out as uint256: the selector uses the full name). */
export const uniswapV2PairAbi = parseAbi([
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
  'event Sync(uint112 reserve0, uint112 reserve1)',
  'event Mint(address indexed sender, uint256 amount0, uint256 amount1)',
  'event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to)',
])

const SWAP = 'Swap(address,uint256,uint256,uint256,uint256,address)'
const SYNC = 'Sync(uint112,uint112)'
const MINT = 'Mint(address,uint256,uint256)'
const BURN = 'Burn(address,uint256,uint256,address)'

export const SWAP_TOPIC0 = toEventSelector(uniswapV2PairAbi[0])
export const SYNC_TOPIC0 = toEventSelector(uniswapV2PairAbi[1])
export const MINT_TOPIC0 = toEventSelector(uniswapV2PairAbi[2])
export const BURN_TOPIC0 = toEventSelector(uniswapV2PairAbi[3])

// A uint112 reserve occupies a full 32-byte word; like Solidity's and viem's decoders we
// read the whole word rather than reject high bits.
const swap: EventDecoder = {
  event: SWAP,
  topic0: SWAP_TOPIC0,
  decode(log) {
    const t = log.topics
    const d = log.data
    const bad = shapeError(t, d, 3, 4)
    if (bad !== null) return malformed(SWAP, bad)
    return {
      type: 'v2_swap',
      address: log.address.toLowerCase(),
      sender: topicAddress(t[1]),
      to: topicAddress(t[2]),
      amount0In: word(d, 0),
      amount1In: word(d, 1),
      amount0Out: word(d, 2),
      amount1Out: word(d, 3),
    }
  },
}

const sync: EventDecoder = {
  event: SYNC,
  topic0: SYNC_TOPIC0,
  decode(log) {
    const d = log.data
    const bad = shapeError(log.topics, d, 1, 2)
    if (bad !== null) return malformed(SYNC, bad)
    return {
      type: 'v2_sync',
      address: log.address.toLowerCase(),
      reserve0: word(d, 0),
      reserve1: word(d, 1),
    }
  },
}

const mint: EventDecoder = {
  event: MINT,
  topic0: MINT_TOPIC0,
  decode(log) {
    const t = log.topics
    const d = log.data
    const bad = shapeError(t, d, 2, 2)
    if (bad !== null) return malformed(MINT, bad)
    return {
      type: 'v2_mint',
      address: log.address.toLowerCase(),
      sender: topicAddress(t[1]),
      amount0: word(d, 0),
      amount1: word(d, 1),
    }
  },
}

const burn: EventDecoder = {
  event: BURN,
  topic0: BURN_TOPIC0,
  decode(log) {
    const t = log.topics
    const d = log.data
    const bad = shapeError(t, d, 3, 2)
    if (bad !== null) return malformed(BURN, bad)
    return {
      type: 'v2_burn',
      address: log.address.toLowerCase(),
      sender: topicAddress(t[1]),
      to: topicAddress(t[2]),
      amount0: word(d, 0),
      amount1: word(d, 1),
    }
  },
}

export const uniswapV2PairDecoders: readonly EventDecoder[] = [swap, sync, mint, burn]
