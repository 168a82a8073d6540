import type { ChainLog } from '../records/chain-block.ts'

/**
 * What the decoders produce: one variant per event, told apart by `type`. Addresses are
 * lowercase `0x` + 40 hex; amounts are exact `bigint`. `address` is always the contract
 * that emitted the log (the token for a Transfer, the pair for Swap/Sync/Mint/Burn, the
 * factory for PairCreated).
 */
export type DecodedEvent =
  | Erc20Transfer
  | V2PairCreated
  | V2Swap
  | V2Sync
  | V2Mint
  | V2Burn
  | MalformedLog

export interface Erc20Transfer {
  type: 'erc20_transfer'
  address: string
  from: string
  to: string
  value: bigint
}

export interface V2PairCreated {
  type: 'v2_pair_created'
  address: string
  token0: string
  token1: string
  pair: string
  /** The factory's `allPairs.length` after this pair (the event's unnamed uint256). */
  allPairsLength: bigint
}

export interface V2Swap {
  type: 'v2_swap'
  address: string
  /** `msg.sender` of `pair.swap`: usually a router, never the trader; the trader is `txFrom`. */
  sender: string
  to: string
  amount0In: bigint
  amount1In: bigint
  amount0Out: bigint
  amount1Out: bigint
}

export interface V2Sync {
  type: 'v2_sync'
  address: string
  reserve0: bigint
  reserve1: bigint
}

export interface V2Mint {
  type: 'v2_mint'
  address: string
  sender: string
  amount0: bigint
  amount1: bigint
}

export interface V2Burn {
  type: 'v2_burn'
  address: string
  sender: string
  to: string
  amount0: bigint
  amount1: bigint
}

/**
 * A log whose topic0 we know but whose shape is wrong (topic count, data too short, bad
 * hex). Returned, never thrown: the caller dead-letters the log with `reason`.
 */
export interface MalformedLog {
  type: 'malformed'
  /** The event signature topic0 claimed, e.g. `Swap(address,uint256,...)`. */
  event: string
  reason: string
}

/** The part of a log a decoder reads; a bus `ChainLog` or a raw RPC log both fit. */
export type LogInput = Pick<ChainLog, 'address' | 'topics' | 'data'>

/**
 * One event's decoder. `decode` may throw only on bad hex (BigInt's SyntaxError);
 * `decodeLog` turns that into a `MalformedLog`. It returns null when the log is another
 * standard's event sharing this topic0 (a 4-topic ERC721 Transfer).
 */
export interface EventDecoder {
  /** Canonical signature, e.g. `Transfer(address,address,uint256)`. */
  readonly event: string
  readonly topic0: string
  decode(log: LogInput): DecodedEvent | null
}
