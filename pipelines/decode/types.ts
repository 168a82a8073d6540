import type { ChainLog } from '../records/chain-block.ts'

/**
 * What the decoders produce: one variant per event, told apart by `type`. Addresses are
 * lowercase `0x` + 40 hex; bytes32 values (v4 pool ids, salts) lowercase `0x` + 64 hex;
 * amounts, prices and liquidity are exact `bigint` (signed ones as negative bigints);
 * 24-bit fields (ticks, fees, tick spacings) are `number`. `address` is always the contract
 * that emitted the log (the token for a Transfer, the pair or v3 pool for its events, the
 * factory for PairCreated/PoolCreated, the PoolManager for every v4 event).
 */
export type DecodedEvent =
  | Erc20Transfer
  | V2PairCreated
  | V2Swap
  | V2Sync
  | V2Mint
  | V2Burn
  | V3PoolCreated
  | V3Swap
  | V3Mint
  | V3Burn
  | V4Initialize
  | V4Swap
  | V4ModifyLiquidity
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

export interface V3PoolCreated {
  type: 'v3_pool_created'
  address: string
  token0: string
  token1: string
  /** Fee tier in hundredths of a bip (3000 = 0.3%). */
  fee: number
  tickSpacing: number
  pool: string
}

/**
 * Uniswap v3 pool Swap. Amounts are the pool's balance deltas: positive = paid into the pool,
 * negative = paid out of it. The input side includes the fee.
 */
export interface V3Swap {
  type: 'v3_swap'
  address: string
  /** `msg.sender` of `pool.swap`: usually a router, never the trader; the trader is `txFrom`. */
  sender: string
  recipient: string
  amount0: bigint
  amount1: bigint
  /** sqrt(token1/token0) as a Q64.96 after the swap. */
  sqrtPriceX96: bigint
  /** In-range liquidity after the swap. */
  liquidity: bigint
  tick: number
}

/** Liquidity added to a v3 position; amounts paid into the pool (unsigned). */
export interface V3Mint {
  type: 'v3_mint'
  address: string
  /** Who called `pool.mint` (the position manager for NFT positions). */
  sender: string
  /** The position's owner in the pool (the position manager for NFT positions). */
  owner: string
  tickLower: number
  tickUpper: number
  /** Liquidity added (the ABI's `amount`). */
  amount: bigint
  amount0: bigint
  amount1: bigint
}

/**
 * Liquidity removed from a v3 position. The amounts are credited to the position and leave
 * the pool later, with Collect (not decoded) and its Transfers.
 */
export interface V3Burn {
  type: 'v3_burn'
  address: string
  owner: string
  tickLower: number
  tickUpper: number
  /** Liquidity removed (the ABI's `amount`). */
  amount: bigint
  amount0: bigint
  amount1: bigint
}

/** A v4 pool initialized in the PoolManager (`address`). Currency address(0) = native ETH. */
export interface V4Initialize {
  type: 'v4_initialize'
  address: string
  /** keccak256 of the abi-encoded PoolKey, `0x` + 64 lowercase hex. */
  poolId: string
  currency0: string
  currency1: string
  /** The key's fee: a static fee in hundredths of a bip, or 0x800000 for a dynamic fee. */
  fee: number
  tickSpacing: number
  hooks: string
  sqrtPriceX96: bigint
  tick: number
}

/**
 * Uniswap v4 Swap, raw as emitted. NB the sign convention is the OPPOSITE of v3: v4-core emits
 * the swapper's balance delta (`BalanceDelta` of the caller), so negative = paid into the pool
 * by the swapper, positive = received by the swapper out of the pool (v4-core's own test emits
 * `Swap(id, router, -100, 98, ...)` for a 100-in exact-input swap, whatever IPoolManager's
 * comment says). Hook deltas (beforeSwap/afterSwap return deltas) are not included.
 */
export interface V4Swap {
  type: 'v4_swap'
  address: string
  poolId: string
  /** The PoolManager's caller: usually a router, never the trader; the trader is `txFrom`. */
  sender: string
  amount0: bigint
  amount1: bigint
  sqrtPriceX96: bigint
  liquidity: bigint
  tick: number
  /** The swap fee actually charged (LP plus protocol), hundredths of a bip. */
  fee: number
}

/**
 * A v4 position changed. Only liquidity is emitted (no token amounts): positive
 * `liquidityDelta` adds, negative removes.
 */
export interface V4ModifyLiquidity {
  type: 'v4_modify_liquidity'
  address: string
  poolId: string
  /** The PoolManager's caller (the position manager for NFT positions). */
  sender: string
  tickLower: number
  tickUpper: number
  liquidityDelta: bigint
  /** Position salt, `0x` + 64 lowercase hex (the position manager puts the token id here). */
  salt: string
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
