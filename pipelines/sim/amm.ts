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
