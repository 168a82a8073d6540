import { erc20Decoders } from './erc20.ts'
import { malformed } from './hex.ts'
import type { DecodedEvent, EventDecoder, LogInput } from './types.ts'
import { uniswapV2FactoryDecoders } from './uniswap-v2-factory.ts'
import { uniswapV2PairDecoders } from './uniswap-v2-pair.ts'
import { uniswapV3FactoryDecoders } from './uniswap-v3-factory.ts'
import { uniswapV3PoolDecoders } from './uniswap-v3-pool.ts'
import { uniswapV4PoolManagerDecoders } from './uniswap-v4-pool-manager.ts'

export type * from './types.ts'

/**
 * Every event family we decode. Adding one (a launchpad, another DEX) is a file exporting its
 * `EventDecoder[]` and one line here.
 */
const FAMILIES: readonly (readonly EventDecoder[])[] = [
  erc20Decoders,
  uniswapV2FactoryDecoders,
  uniswapV2PairDecoders,
  uniswapV3FactoryDecoders,
  uniswapV3PoolDecoders,
  uniswapV4PoolManagerDecoders,
]

const BY_TOPIC0 = new Map<string, EventDecoder>()
for (const family of FAMILIES) {
  for (const d of family) {
    // Two families claiming one topic0 must be resolved inside one decoder (as Transfer
    // is for ERC20/ERC721), never by registration order.
    if (BY_TOPIC0.has(d.topic0)) throw new Error(`decode: topic0 ${d.topic0} (${d.event}) registered twice`)
    BY_TOPIC0.set(d.topic0, d)
  }
}

/** The decoders in dispatch order, for tests and benches that need the topic0 list. */
export const decoders: readonly EventDecoder[] = [...BY_TOPIC0.values()]

/**
 * Decode one log. Returns null for events we do not follow (unknown topic0, no topics,
 * a 4-topic ERC721 Transfer), and `{ type: 'malformed', event, reason }` for a known
 * topic0 whose log has the wrong shape (topic count, short data, bad hex): the caller
 * dead-letters those. It never throws. It trusts the hex-string shape the `ChainLog`
 * schema checks at the bus boundary and does not re-validate address characters.
 */
export function decodeLog(log: LogInput): DecodedEvent | null {
  const topic0 = log.topics[0]
  if (topic0 === undefined) return null
  // Nodes emit lowercase hex; only fall back to lowercasing when the fast lookup misses.
  const decoder = BY_TOPIC0.get(topic0) ?? BY_TOPIC0.get(topic0.toLowerCase())
  if (decoder === undefined) return null
  try {
    return decoder.decode(log)
  } catch (err) {
    return malformed(decoder.event, `undecodable: ${err instanceof Error ? err.message : String(err)}`)
  }
}
