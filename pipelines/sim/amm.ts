/** Uniswap v2 pair arithmetic, integer-exact as the contracts do it. */

export const MINIMUM_LIQUIDITY = 1000n

/** Output for `amountIn` against reserves, with the 0.3% fee (UniswapV2Library.getAmountOut). */
export function getAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  const inWithFee = amountIn * 997n
  return (inWithFee * reserveOut) / (reserveIn * 1000n + inWithFee)
}

/** Floor square root (the pair's Math.sqrt). */
export function sqrt(y: bigint): bigint {
  if (y < 4n) return y === 0n ? 0n : 1n
  let z = y
  let x = y / 2n + 1n
  while (x < z) {
    z = x
    x = (y / x + x) / 2n
  }
  return z
}

/** LP tokens minted for adding `amount0`/`amount1` (UniswapV2Pair.mint, no protocol fee). */
export function liquidityMinted(
  amount0: bigint,
  amount1: bigint,
  reserve0: bigint,
  reserve1: bigint,
  totalSupply: bigint,
): bigint {
  if (totalSupply === 0n) return sqrt(amount0 * amount1) - MINIMUM_LIQUIDITY
  const a = (amount0 * totalSupply) / reserve0
  const b = (amount1 * totalSupply) / reserve1
  return a < b ? a : b
}

// Uniswap v3/v4 pools in the simulator hold one kind of position: full range. Full-range
// liquidity L over curve reserves (x, y) is exactly the constant product x * y = L^2, so a
// v3/v4 pool prices like a v2 pair, except that the fee stays outside the curve (v3/v4 credit
// it to positions instead of adding it to the reserves).

/** The part of `amountIn` left after a fee of `feePpm` millionths: what a v3/v4 curve takes in. */
export function afterFee(amountIn: bigint, feePpm: number): bigint {
  return (amountIn * BigInt(1_000_000 - feePpm)) / 1_000_000n
}

/** Output of a full-range v3/v4 pool for `amountIn`, fee included. */
export function concentratedOut(amountIn: bigint, feePpm: number, reserveIn: bigint, reserveOut: bigint): bigint {
  const inLessFee = afterFee(amountIn, feePpm)
  return (inLessFee * reserveOut) / (reserveIn + inLessFee)
}

/** Floor square root, seeded from the bit length so it takes a handful of Newton steps. */
export function isqrt(y: bigint): bigint {
  if (y < 4n) return y === 0n ? 0n : 1n
  let x = 1n << BigInt((y.toString(16).length * 4 + 1) >> 1) // >= sqrt(y)
  for (;;) {
    const next = (x + y / x) >> 1n
    if (next >= x) return x
    x = next
  }
}

/** sqrt(reserve1 / reserve0) as a Q64.96, floored (the pool's `sqrtPriceX96`). */
export function sqrtPriceX96(reserve0: bigint, reserve1: bigint): bigint {
  return isqrt((reserve1 << 192n) / reserve0)
}

/** The tick of a Q64.96 sqrt price: floor(log_1.0001(price)), from a float (not TickMath-exact). */
export function tickOf(sqrtPriceX96: bigint): number {
  const s = Number(sqrtPriceX96) / 2 ** 96
  return Math.floor((2 * Math.log(s)) / Math.log(1.0001))
}

export const MIN_TICK = -887272
export const MAX_TICK = 887272

/** The widest [tickLower, tickUpper] a position may use at `tickSpacing`. */
export function fullRange(tickSpacing: number): [number, number] {
  const upper = Math.floor(MAX_TICK / tickSpacing) * tickSpacing
  return [-upper, upper]
}
