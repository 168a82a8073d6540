import { concat, encodeAbiParameters, getContractAddress, type Hex, keccak256 } from 'viem'
import {
  afterFee,
  concentratedOut,
  fullRange,
  getAmountOut,
  isqrt,
  liquidityMinted,
  MINIMUM_LIQUIDITY,
  sqrtPriceX96,
  tickOf,
} from './amm.ts'
import { type SimContracts, ZERO_ADDRESS } from './contracts.ts'
import type { LogSpec } from './encode.ts'

/**
 * The simulated token/WETH pools on Uniswap v2, v3 and v4: their state and the logs each
 * operation emits, in the order the real contracts emit them. The world decides who trades
 * what; this file knows how each venue books it.
 *
 * v3 and v4 pools hold full-range positions only, so their curve is a constant product (see
 * amm.ts) and every amount, price and liquidity they emit is consistent with their reserves.
 * v4 pools pair the token with WETH (not native ETH), so a processor values all three venues
 * the same way. Events no decoder follows are left out: v3's pool Initialize and Collect, the
 * position NFTs' ERC721 Transfers, WETH Deposit/Withdrawal; the token Transfers in and out of
 * pools that those flows cause are emitted.
 */
export type Venue = 'v2' | 'v3' | 'v4'

export interface SimPool {
  venue: Venue
  /** Where the pool's events come from: the pair (v2), the pool (v3) or the PoolManager (v4). */
  address: string
  /** Where its tokens are held: the pair or pool itself, or the PoolManager. */
  holder: string
  /** v4 pool id (keccak256 of the PoolKey); '' on v2 and v3. */
  poolId: string
  token: string
  tokenIs0: boolean
  /** v2: the reserves. v3/v4: the curve's reserves (fees earned sit outside them). */
  reserveToken: bigint
  reserveWeth: bigint
  /** Swap fee in millionths (v2: 3000, applied as 997/1000). */
  fee: number
  tickSpacing: number
  tickLower: number
  tickUpper: number
  /** v2: LP token supply. v3/v4: the pool's liquidity (all positions are full range). */
  liquidity: bigint
  /** Provider -> LP tokens (v2) or liquidity (v3/v4). */
  positions: Map<string, bigint>
  /** v4: provider -> the salt of its position (the position NFT's id). */
  salts: Map<string, string>
}

export interface SwapOrder {
  /** WETH in and token out (a buy), or the reverse (a sell). */
  wethIn: boolean
  amountIn: bigint
  /** Who pays the input in; null: the venue's router (it wrapped the trader's ETH). */
  payer: string | null
  /** Who receives the output; null: the venue's router (it unwraps WETH for the trader). */
  recipient: string | null
  /** v2 only: the input already sits in the pair (the previous hop of a routed trade paid it). */
  inputPaid?: boolean
}

export interface Venues {
  /** Create the token's pool on `venue` and add the first liquidity from `provider`. */
  open(venue: Venue, token: string, provider: string, amountToken: bigint, amountWeth: bigint, fee: number): { pool: SimPool; logs: LogSpec[] }
  /** Output of a swap without applying it. */
  quote(pool: SimPool, amountIn: bigint, wethIn: boolean): bigint
  /** Apply a swap whose output `quote` gave as non-zero; returns its logs. */
  swap(pool: SimPool, order: SwapOrder, amountOut: bigint): LogSpec[]
  /** `provider` adds `amountToken` and the WETH that matches the price; null when too small. */
  add(pool: SimPool, provider: string, amountToken: bigint): { amountWeth: bigint; logs: LogSpec[] } | null
  /** `owner` removes `fraction` of its position; null when it has none. */
  remove(pool: SimPool, owner: string, fraction: number): { outToken: bigint; outWeth: bigint; logs: LogSpec[] } | null
  /** The router that sends this venue's swaps (the `sender` of its Swap events). */
  router(venue: Venue): string
}

/** The tick spacing Uniswap v3 (and v4 by convention) pairs with a fee tier. */
export function tickSpacingOf(fee: number): number {
  return fee === 100 ? 1 : fee === 500 ? 10 : fee === 3000 ? 60 : 200
}

const POOL_KEY = [{ type: 'address' }, { type: 'address' }, { type: 'uint24' }, { type: 'int24' }, { type: 'address' }] as const
const V3_SALT = [{ type: 'address' }, { type: 'address' }, { type: 'uint24' }] as const

/** The v2, v3 and v4 venues of a simulated chain, booking into `contracts`' factories and managers. */
export function createVenues(contracts: SimContracts): Venues {
  const weth = contracts.weth
  const v2Factory = contracts.v2Factories[0]
  const v2Router = contracts.v2Routers[0]
  const v3Factory = contracts.v3Factories[0]
  const v3Router = contracts.v3Routers[0]
  const v3Manager = contracts.v3PositionManagers[0]
  const poolManager = contracts.v4PoolManagers[0]
  const v4Router = contracts.v4Routers[0]
  const v4Manager = contracts.v4PositionManagers[0]
  let allPairsLength = 0n
  let nextPositionId = 1n

  const router = (venue: Venue) => (venue === 'v2' ? v2Router : venue === 'v3' ? v3Router : v4Router)
  const pairOf = (pool: SimPool, token: bigint, wethAmount: bigint): [bigint, bigint] =>
    pool.tokenIs0 ? [token, wethAmount] : [wethAmount, token]
  const sync = (pool: SimPool): LogSpec => {
    const [reserve0, reserve1] = pairOf(pool, pool.reserveToken, pool.reserveWeth)
    return { type: 'v2_sync', address: pool.address, reserve0, reserve1 }
  }
  const price = (pool: SimPool) => {
    const [r0, r1] = pairOf(pool, pool.reserveToken, pool.reserveWeth)
    const sqrtP = sqrtPriceX96(r0, r1)
    return { sqrtPriceX96: sqrtP, tick: tickOf(sqrtP) }
  }
  /** Token and WETH transfers, token0's first (the order pools pay and are paid in). */
  const inOrder = (pool: SimPool, tokenLeg: LogSpec, wethLeg: LogSpec): LogSpec[] =>
    pool.tokenIs0 ? [tokenLeg, wethLeg] : [wethLeg, tokenLeg]
  const transfer = (address: string, from: string, to: string, value: bigint): LogSpec => ({ type: 'erc20_transfer', address, from, to, value })

  function open(venue: Venue, token: string, provider: string, amountToken: bigint, amountWeth: bigint, fee: number) {
    const tokenIs0 = token < weth
    const [token0, token1] = tokenIs0 ? [token, weth] : [weth, token]
    const [amount0, amount1] = tokenIs0 ? [amountToken, amountWeth] : [amountWeth, amountToken]
    const tickSpacing = venue === 'v2' ? 1 : tickSpacingOf(fee)
    const [tickLower, tickUpper] = fullRange(tickSpacing)
    const pool: SimPool = {
      venue,
      address: '',
      holder: '',
      poolId: '',
      token,
      tokenIs0,
      reserveToken: amountToken,
      reserveWeth: amountWeth,
      fee: venue === 'v2' ? 3000 : fee,
      tickSpacing,
      tickLower,
      tickUpper,
      liquidity: 0n,
      positions: new Map(),
      salts: new Map(),
    }
    if (venue === 'v2') {
      pool.address = pool.holder = getContractAddress({
        opcode: 'CREATE2',
        from: v2Factory as Hex,
        salt: keccak256(concat([token0 as Hex, token1 as Hex])),
        bytecodeHash: contracts.v2PairInitCodeHash as Hex,
      }).toLowerCase()
      allPairsLength++
      const lp = liquidityMinted(amount0, amount1, 0n, 0n, 0n)
      pool.liquidity = lp + MINIMUM_LIQUIDITY
      pool.positions.set(provider, lp)
      const logs: LogSpec[] = [
        { type: 'v2_pair_created', address: v2Factory, token0, token1, pair: pool.address, allPairsLength },
        transfer(token, provider, pool.address, amountToken),
        transfer(weth, v2Router, pool.address, amountWeth),
        transfer(pool.address, ZERO_ADDRESS, ZERO_ADDRESS, MINIMUM_LIQUIDITY),
        transfer(pool.address, ZERO_ADDRESS, provider, lp),
        sync(pool),
        { type: 'v2_mint', address: pool.address, sender: v2Router, amount0, amount1 },
      ]
      return { pool, logs }
    }
    const liquidity = isqrt(amount0 * amount1)
    pool.liquidity = liquidity
    pool.positions.set(provider, liquidity)
    if (venue === 'v3') {
      pool.address = pool.holder = getContractAddress({
        opcode: 'CREATE2',
        from: v3Factory as Hex,
        salt: keccak256(encodeAbiParameters(V3_SALT, [token0 as Hex, token1 as Hex, fee])),
        bytecodeHash: contracts.v3PoolInitCodeHash as Hex,
      }).toLowerCase()
      // The position manager's multicall: createAndInitializePoolIfNecessary, then mint.
      const logs: LogSpec[] = [
        { type: 'v3_pool_created', address: v3Factory, token0, token1, fee, tickSpacing, pool: pool.address },
        ...inOrder(pool, transfer(token, provider, pool.address, amountToken), transfer(weth, v3Manager, pool.address, amountWeth)),
        { type: 'v3_mint', address: pool.address, sender: v3Manager, owner: v3Manager, tickLower, tickUpper, amount: liquidity, amount0, amount1 },
      ]
      return { pool, logs }
    }
    pool.address = pool.holder = poolManager
    pool.poolId = keccak256(encodeAbiParameters(POOL_KEY, [token0 as Hex, token1 as Hex, fee, tickSpacing, ZERO_ADDRESS]))
    const { sqrtPriceX96: sqrtP, tick } = price(pool)
    const salt = positionSalt(pool, provider)
    const logs: LogSpec[] = [
      { type: 'v4_initialize', address: poolManager, poolId: pool.poolId, currency0: token0, currency1: token1, fee, tickSpacing, hooks: ZERO_ADDRESS, sqrtPriceX96: sqrtP, tick },
      { type: 'v4_modify_liquidity', address: poolManager, poolId: pool.poolId, sender: v4Manager, tickLower, tickUpper, liquidityDelta: liquidity, salt },
      ...inOrder(pool, transfer(token, provider, poolManager, amountToken), transfer(weth, v4Manager, poolManager, amountWeth)),
    ]
    return { pool, logs }
  }

  function positionSalt(pool: SimPool, provider: string): string {
    let salt = pool.salts.get(provider)
    if (salt === undefined) {
      salt = '0x' + (nextPositionId++).toString(16).padStart(64, '0')
      pool.salts.set(provider, salt)
    }
    return salt
  }

  function quote(pool: SimPool, amountIn: bigint, wethIn: boolean): bigint {
    const [rIn, rOut] = wethIn ? [pool.reserveWeth, pool.reserveToken] : [pool.reserveToken, pool.reserveWeth]
    if (pool.venue === 'v2') return getAmountOut(amountIn, rIn, rOut)
    return concentratedOut(amountIn, pool.fee, rIn, rOut)
  }

  function swap(pool: SimPool, order: SwapOrder, amountOut: bigint): LogSpec[] {
    const { wethIn, amountIn } = order
    const venueRouter = router(pool.venue)
    const payer = order.payer ?? venueRouter
    const recipient = order.recipient ?? venueRouter
    const [inAsset, outAsset] = wethIn ? [weth, pool.token] : [pool.token, weth]
    const kept = pool.venue === 'v2' ? amountIn : afterFee(amountIn, pool.fee)
    if (wethIn) {
      pool.reserveWeth += kept
      pool.reserveToken -= amountOut
    } else {
      pool.reserveToken += kept
      pool.reserveWeth -= amountOut
    }
    const input = transfer(inAsset, payer, pool.holder, amountIn)
    const output = transfer(outAsset, pool.holder, recipient, amountOut)
    // Token-side and WETH-side amounts as pool deltas (positive = into the pool).
    const [tokenDelta, wethDelta] = wethIn ? [-amountOut, amountIn] : [amountIn, -amountOut]
    const [delta0, delta1] = pairOf(pool, tokenDelta, wethDelta)
    if (pool.venue === 'v2') {
      const [in0, in1] = pairOf(pool, wethIn ? 0n : amountIn, wethIn ? amountIn : 0n)
      const [out0, out1] = pairOf(pool, wethIn ? amountOut : 0n, wethIn ? 0n : amountOut)
      const logs: LogSpec[] = order.inputPaid ? [] : [input]
      logs.push(output, sync(pool), {
        type: 'v2_swap', address: pool.address, sender: v2Router, to: recipient,
        amount0In: in0, amount1In: in1, amount0Out: out0, amount1Out: out1,
      })
      return logs
    }
    const { sqrtPriceX96: sqrtP, tick } = price(pool)
    if (pool.venue === 'v3') {
      // The pool pays out first, then takes the input in the swap callback, then emits Swap.
      return [
        output,
        input,
        { type: 'v3_swap', address: pool.address, sender: v3Router, recipient, amount0: delta0, amount1: delta1, sqrtPriceX96: sqrtP, liquidity: pool.liquidity, tick },
      ]
    }
    // v4 emits Swap inside the swap call; the router settles (pays in) and takes (out) after.
    // Its amounts are the swapper's deltas: the pool's, negated.
    return [
      {
        type: 'v4_swap', address: poolManager, poolId: pool.poolId, sender: v4Router,
        amount0: -delta0, amount1: -delta1, sqrtPriceX96: sqrtP, liquidity: pool.liquidity, tick, fee: pool.fee,
      },
      input,
      output,
    ]
  }

  function add(pool: SimPool, provider: string, amountToken: bigint) {
    const amountWeth = (amountToken * pool.reserveWeth) / pool.reserveToken
    const [amount0, amount1] = pairOf(pool, amountToken, amountWeth)
    const [r0, r1] = pairOf(pool, pool.reserveToken, pool.reserveWeth)
    const liquidity = pool.venue === 'v2' ? liquidityMinted(amount0, amount1, r0, r1, pool.liquidity) : (amountToken * pool.liquidity) / pool.reserveToken
    if (liquidity <= 0n || amountWeth === 0n) return null
    pool.reserveToken += amountToken
    pool.reserveWeth += amountWeth
    pool.liquidity += liquidity
    pool.positions.set(provider, (pool.positions.get(provider) ?? 0n) + liquidity)
    const { tickLower, tickUpper } = pool
    let logs: LogSpec[]
    if (pool.venue === 'v2') {
      logs = [
        transfer(pool.token, provider, pool.address, amountToken),
        transfer(weth, v2Router, pool.address, amountWeth),
        transfer(pool.address, ZERO_ADDRESS, provider, liquidity),
        sync(pool),
        { type: 'v2_mint', address: pool.address, sender: v2Router, amount0, amount1 },
      ]
    } else if (pool.venue === 'v3') {
      logs = [
        ...inOrder(pool, transfer(pool.token, provider, pool.address, amountToken), transfer(weth, v3Manager, pool.address, amountWeth)),
        { type: 'v3_mint', address: pool.address, sender: v3Manager, owner: v3Manager, tickLower, tickUpper, amount: liquidity, amount0, amount1 },
      ]
    } else {
      logs = [
        { type: 'v4_modify_liquidity', address: poolManager, poolId: pool.poolId, sender: v4Manager, tickLower, tickUpper, liquidityDelta: liquidity, salt: positionSalt(pool, provider) },
        ...inOrder(pool, transfer(pool.token, provider, poolManager, amountToken), transfer(weth, v4Manager, poolManager, amountWeth)),
      ]
    }
    return { amountWeth, logs }
  }

  function remove(pool: SimPool, owner: string, fraction: number) {
    const held = pool.positions.get(owner) ?? 0n
    const liquidity = fraction >= 1 ? held : (held * BigInt(Math.round(fraction * 1_000_000))) / 1_000_000n
    if (liquidity === 0n) return null
    const outToken = (liquidity * pool.reserveToken) / pool.liquidity
    const outWeth = (liquidity * pool.reserveWeth) / pool.liquidity
    pool.reserveToken -= outToken
    pool.reserveWeth -= outWeth
    pool.liquidity -= liquidity
    if (liquidity === held) pool.positions.delete(owner)
    else pool.positions.set(owner, held - liquidity)
    const [amount0, amount1] = pairOf(pool, outToken, outWeth)
    const { tickLower, tickUpper } = pool
    let logs: LogSpec[]
    if (pool.venue === 'v2') {
      // removeLiquidityETH: LP tokens to the pair and burnt, both assets to the router, which
      // forwards the token and unwraps the WETH to the owner.
      logs = [
        transfer(pool.address, owner, pool.address, liquidity),
        transfer(pool.address, pool.address, ZERO_ADDRESS, liquidity),
        ...inOrder(pool, transfer(pool.token, pool.address, v2Router, outToken), transfer(weth, pool.address, v2Router, outWeth)),
        sync(pool),
        { type: 'v2_burn', address: pool.address, sender: v2Router, amount0, amount1, to: v2Router },
        transfer(pool.token, v2Router, owner, outToken),
      ]
    } else if (pool.venue === 'v3') {
      // decreaseLiquidity (Burn), then collect: the pool pays the owner.
      logs = [
        { type: 'v3_burn', address: pool.address, owner: v3Manager, tickLower, tickUpper, amount: liquidity, amount0, amount1 },
        ...inOrder(pool, transfer(pool.token, pool.address, owner, outToken), transfer(weth, pool.address, owner, outWeth)),
      ]
    } else {
      logs = [
        { type: 'v4_modify_liquidity', address: poolManager, poolId: pool.poolId, sender: v4Manager, tickLower, tickUpper, liquidityDelta: -liquidity, salt: positionSalt(pool, owner) },
        ...inOrder(pool, transfer(pool.token, poolManager, owner, outToken), transfer(weth, poolManager, owner, outWeth)),
      ]
    }
    return { outToken, outWeth, logs }
  }

  return { open, quote, swap, add, remove, router }
}
