import { createRequire } from 'node:module'
import type { Abi, Hex } from 'viem'

/**
 * Compiled contracts as shipped in npm packages (no compiler runs here):
 * Uniswap v2 core and periphery build outputs and OpenZeppelin 4's Truffle artifacts.
 *
 * Checked: the shipped `UniswapV2Router02` hardcodes the pair init code hash
 * 0x96e8ac42...348845f in `pairFor`, and keccak256 of the shipped `UniswapV2Pair` creation
 * code (which is what the shipped `UniswapV2Factory` embeds) is exactly that hash, so the
 * router finds the factory's pairs. `test/integration/hardhat-harness.test.ts` checks it again.
 */
export interface Artifact {
  readonly abi: Abi
  /** Creation bytecode, 0x-prefixed. */
  readonly bytecode: Hex
}

const require = createRequire(import.meta.url)

function load(module: string): Artifact {
  const json = require(module) as { abi: Abi; bytecode: string }
  const code = json.bytecode.startsWith('0x') ? json.bytecode : `0x${json.bytecode}`
  return { abi: json.abi, bytecode: code as Hex }
}

export const artifacts = {
  factory: load('@uniswap/v2-core/build/UniswapV2Factory.json'),
  pair: load('@uniswap/v2-core/build/UniswapV2Pair.json'),
  router: load('@uniswap/v2-periphery/build/UniswapV2Router02.json'),
  weth: load('@uniswap/v2-periphery/build/WETH9.json'),
  /** OpenZeppelin 4 `ERC20PresetFixedSupply(name, symbol, initialSupply, owner)`. */
  token: load('@openzeppelin/contracts/build/contracts/ERC20PresetFixedSupply.json'),
} as const

/** The init code hash the shipped UniswapV2Router02 uses in `UniswapV2Library.pairFor`. */
export const ROUTER02_PAIR_INIT_CODE_HASH: Hex = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f'
