import { keccak256, toHex } from 'viem'

/**
 * The fixed contracts of a simulated chain. Their addresses are `keccak256(label)`'s last
 * 20 bytes, so they do not depend on the seed: a processor can be configured with them
 * before the world exists.
 */
export interface SimContracts {
  chainId: number
  weth: string
  v2Factories: string[]
  /** The router every simulated trade and liquidity change goes through (`sender` of Swap/Mint/Burn). */
  v2Routers: string[]
  /** CREATE2 init code hash the factory deploys pairs with (Uniswap v2's published value). */
  v2PairInitCodeHash: string
}

/** Uniswap v2's pair init code hash, as published in the v2 SDK and periphery library. */
export const UNISWAP_V2_INIT_CODE_HASH = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f'

function labelAddress(label: string): string {
  return '0x' + keccak256(toHex(label)).slice(26)
}

/** The simulated contracts of `chainId`. */
export function simContracts(chainId: number): SimContracts {
  return {
    chainId,
    weth: labelAddress(`chain-sim/${chainId}/weth`),
    v2Factories: [labelAddress(`chain-sim/${chainId}/v2-factory`)],
    v2Routers: [labelAddress(`chain-sim/${chainId}/v2-router`)],
    v2PairInitCodeHash: UNISWAP_V2_INIT_CODE_HASH,
  }
}

// Written out so config files and docs can name them; a test checks them against simContracts.
export const SIM_4663_WETH = '0x8850feea41e15e111ea205c07dfa2d255e6b4d4d'
export const SIM_4663_V2_FACTORY = '0xf3e7fdac8137277e35235016c22c39af2869593b'
export const SIM_4663_V2_ROUTER = '0x03b1022751dbde6e9633cb0b32a3196c27611a4f'

/** What a processor follows on the simulated chain 4663 (same shape as `CHAIN_4663_*` config). */
export const SIM_4663_CONTRACTS: Readonly<SimContracts> = Object.freeze(simContracts(4663))

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'
