import type { Config } from '../core/config.ts'
import type { FollowedContracts } from '../pipelines/process/pool-registry.ts'
import { SIM_4663_CONTRACTS } from '../pipelines/sim/contracts.ts'

/** The contracts the chain-4663 processor follows: configured ones, plus the simulator's when it runs. */
export function followed4663(config: Config): FollowedContracts {
  const weth = new Set(config.CHAIN_4663_WETH ?? [])
  const v2Factories = new Set(config.CHAIN_4663_V2_FACTORIES ?? [])
  if (config.simulatorOn) {
    weth.add(SIM_4663_CONTRACTS.weth)
    for (const f of SIM_4663_CONTRACTS.v2Factories) v2Factories.add(f)
  }
  return { weth, v2Factories }
}
