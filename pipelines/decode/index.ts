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
export const FAMILIES: readonly (readonly EventDecoder[])[] = [
  erc20Decoders,
  uniswapV2FactoryDecoders,
  uniswapV2PairDecoders,
  uniswapV3FactoryDecoders,
  uniswapV3PoolDecoders,
  uniswapV4PoolManagerDecoders,
]

/** A set of families ready to dispatch on: what `decoders` and `decodeLog` below are for FAMILIES. */
export interface DecoderRegistry {
  readonly decoders: readonly EventDecoder[]
  decodeLog(log: LogInput): DecodedEvent | null
}

/**
 * The dispatch table over `families`, keyed by topic0. Throws when two decoders claim one
 * topic0: built at module load from FAMILIES, that stops the process before it decodes anything.
 */
export function createDecoderRegistry(families: readonly (readonly EventDecoder[])[]): DecoderRegistry {
  const byTopic0 = new Map<string, EventDecoder>()
  for (const family of families) {
    for (const d of family) {
      // Two families claiming one topic0 must be resolved inside one decoder (as Transfer
      // is for ERC20/ERC721), never by registration order.
      if (byTopic0.has(d.topic0)) throw new Error(`decode: topic0 ${d.topic0} (${d.event}) registered twice`)
      byTopic0.set(d.topic0, d)
    }
  }
  return {
    decoders: [...byTopic0.values()],
    decodeLog(log) {
      const topic0 = log.topics[0]
      if (topic0 === undefined) return null
      // Nodes emit lowercase hex; only fall back to lowercasing when the fast lookup misses.
      const decoder = byTopic0.get(topic0) ?? byTopic0.get(topic0.toLowerCase())
      if (decoder === undefined) return null
      try {
        return decoder.decode(log)
      } catch (err) {
        return malformed(decoder.event, `undecodable: ${err instanceof Error ? err.message : String(err)}`)
      }
    },
  }
}

const registry = createDecoderRegistry(FAMILIES)

/** The decoders in dispatch order, for tests and benches that need the topic0 list. */
export const decoders: readonly EventDecoder[] = registry.decoders

/**
 * Decode one log. Returns null for events we do not follow (unknown topic0, no topics,
 * a 4-topic ERC721 Transfer), and `{ type: 'malformed', event, reason }` for a known
 * topic0 whose log has the wrong shape (topic count, short data, bad hex): the caller
 * dead-letters those. It never throws. It trusts the hex-string shape the `ChainLog`
 * schema checks at the bus boundary and does not re-validate address characters.
 */
export function decodeLog(log: LogInput): DecodedEvent | null {
  return registry.decodeLog(log)
}
