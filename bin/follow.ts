import type { Config } from '../core/config.ts'
import type { FollowedContracts } from '../pipelines/process/pool-registry.ts'
import { SIM_4663_CONTRACTS } from '../pipelines/sim/contracts.ts'

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
