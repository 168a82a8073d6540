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
  /** Uniswap v3 factories (emit PoolCreated; pools are CREATE2 children of the factory). */
  v3Factories: string[]
  /** The v3 swap router: `sender` of every simulated v3 Swap. */
  v3Routers: string[]
  /** The v3 position manager: `sender` and `owner` of every simulated v3 Mint/Burn. */
  v3PositionManagers: string[]
  /** CREATE2 init code hash of v3 pools (Uniswap v3's published POOL_INIT_CODE_HASH). */
  v3PoolInitCodeHash: string
  /** Uniswap v4 PoolManager singletons: every v4 event comes from one, pools named by id. */
  v4PoolManagers: string[]
  /** The v4 router: `sender` of every simulated v4 Swap. */
  v4Routers: string[]
  /** The v4 position manager: `sender` of every simulated v4 ModifyLiquidity. */
  v4PositionManagers: string[]
}

/** Uniswap v2's pair init code hash, as published in the v2 SDK and periphery library. */
export const UNISWAP_V2_INIT_CODE_HASH = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f'

/** Uniswap v3's pool init code hash, as published in the v3 SDK and periphery PoolAddress library. */
export const UNISWAP_V3_POOL_INIT_CODE_HASH = '0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54'

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
    v3Factories: [labelAddress(`chain-sim/${chainId}/v3-factory`)],
    v3Routers: [labelAddress(`chain-sim/${chainId}/v3-router`)],
    v3PositionManagers: [labelAddress(`chain-sim/${chainId}/v3-position-manager`)],
    v3PoolInitCodeHash: UNISWAP_V3_POOL_INIT_CODE_HASH,
    v4PoolManagers: [labelAddress(`chain-sim/${chainId}/v4-pool-manager`)],
    v4Routers: [labelAddress(`chain-sim/${chainId}/v4-router`)],
    v4PositionManagers: [labelAddress(`chain-sim/${chainId}/v4-position-manager`)],
  }
}

// Written out so config files and docs can name them; a test checks them against simContracts.
export const SIM_4663_WETH = '0x8850feea41e15e111ea205c07dfa2d255e6b4d4d'
export const SIM_4663_V2_FACTORY = '0xf3e7fdac8137277e35235016c22c39af2869593b'
export const SIM_4663_V2_ROUTER = '0x03b1022751dbde6e9633cb0b32a3196c27611a4f'
export const SIM_4663_V3_FACTORY = '0x595c3e0ed3b7dd072bc040c627c8b3d30e83d882'
export const SIM_4663_V3_ROUTER = '0xe147cd63b4218d14c596f756bb8dac307b2c5750'
export const SIM_4663_V3_POSITION_MANAGER = '0xdfd125c26cdf40417231660a7b6f552fc1141482'
export const SIM_4663_V4_POOL_MANAGER = '0x7a5c2345c43a71c92b4a1dd9370163513dc62a2c'
export const SIM_4663_V4_ROUTER = '0x30aca411012acdeffff9111f106e0ffe0ae6fe2f'
export const SIM_4663_V4_POSITION_MANAGER = '0xbeae9578c51e2589bb73967de7802141a436beea'

/** What a processor follows on the simulated chain 4663 (same shape as `CHAIN_4663_*` config). */
export const SIM_4663_CONTRACTS: Readonly<SimContracts> = Object.freeze(simContracts(4663))

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'
