import type { Config } from '../core/config.ts'
import type { FollowedContracts } from '../pipelines/process/pool-registry.ts'
import { SIM_4663_CONTRACTS, simContracts } from '../pipelines/sim/contracts.ts'
import { simLaunchpads } from '../pipelines/sim/launchpads.ts'

/** The contracts the chain-4663 processor follows: configured ones, plus the simulator's when it runs. */
export function followed4663(config: Config): FollowedContracts {
  const weth = new Set(config.CHAIN_4663_WETH ?? [])
  const v2Factories = new Set(config.CHAIN_4663_V2_FACTORIES ?? [])
  const v3Factories = new Set(config.CHAIN_4663_V3_FACTORIES ?? [])
  const v4PoolManagers = new Set(config.CHAIN_4663_V4_POOL_MANAGER ?? [])
  if (config.simulatorOn) {
    weth.add(SIM_4663_CONTRACTS.weth)
    for (const f of SIM_4663_CONTRACTS.v2Factories) v2Factories.add(f)
    for (const f of SIM_4663_CONTRACTS.v3Factories) v3Factories.add(f)
    for (const m of SIM_4663_CONTRACTS.v4PoolManagers) v4PoolManagers.add(m)
  }
  return { weth, v2Factories, v3Factories, v4PoolManagers }
}

/**
 * The contracts the chain-5042 processor follows: the configured launchpads and factories
 * (CHAIN_5042_LAUNCHPADS, CHAIN_5042_FACTORIES; a factory may have either the v2 PairCreated
 * or the v3 PoolCreated shape), plus the simulator's when 5042 is simulated. No WETH: 5042's
 * activity is measured in each token's own units (pipelines/process/arc-rows.ts).
 */
export function followed5042(config: Config): FollowedContracts {
  const pads = new Set(config.CHAIN_5042_LAUNCHPADS ?? [])
  const factories = new Set(config.CHAIN_5042_FACTORIES ?? [])
  if (config.simulator5042On) {
    const sim = simContracts(5042)
    for (const p of simLaunchpads(5042)) pads.add(p)
    for (const f of [...sim.v2Factories, ...sim.v3Factories]) factories.add(f)
  }
  return { weth: new Set(), v2Factories: factories, v3Factories: factories, v4PoolManagers: new Set(), attribution: { pads, factories } }
}

/** The contracts a chain's processor follows. */
export function followedContracts(config: Config, chainId: 4663 | 5042): FollowedContracts {
  return chainId === 4663 ? followed4663(config) : followed5042(config)
}
