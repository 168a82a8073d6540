import { describe, expect, it } from 'vitest'
import { followed5042 } from '../../bin/follow.ts'
import { loadConfig } from '../../core/config.ts'
import { simContracts } from '../../pipelines/sim/contracts.ts'
import { simLaunchpads } from '../../pipelines/sim/launchpads.ts'

describe('chain 5042 configuration', () => {
  it('each chain without an RPC URL is simulated unless SIMULATOR=off', () => {
    const rpc = 'http://127.0.0.1:8545'
    expect(loadConfig({})).toMatchObject({ simulatorOn: true, simulator5042On: true })
    expect(loadConfig({ CHAIN_5042_RPC_URL: rpc })).toMatchObject({ simulatorOn: true, simulator5042On: false })
    expect(loadConfig({ CHAIN_4663_RPC_URL: rpc })).toMatchObject({ simulatorOn: false, simulator5042On: true })
    expect(loadConfig({ SIMULATOR: 'off' })).toMatchObject({ simulatorOn: false, simulator5042On: false })
    expect(loadConfig({ SIMULATOR: 'on', CHAIN_4663_RPC_URL: rpc, CHAIN_5042_RPC_URL: rpc })).toMatchObject({ simulatorOn: false, simulator5042On: false })
  })

  it('CHAIN_5042_LAUNCHPADS and CHAIN_5042_FACTORIES are what the 5042 processor attributes launches to; the simulator\'s only when 5042 is simulated', () => {
    const pad = '0x' + 'Ab'.repeat(20)
    const factory = '0x' + 'cd'.repeat(20)
    const real = followed5042(loadConfig({ CHAIN_5042_RPC_URL: 'http://127.0.0.1:8545', CHAIN_5042_LAUNCHPADS: pad, CHAIN_5042_FACTORIES: factory }))
    expect(real.attribution).toEqual({ pads: new Set([pad.toLowerCase()]), factories: new Set([factory]) })
    expect(real.v2Factories).toEqual(new Set([factory]))
    expect(real.v3Factories).toEqual(new Set([factory]))
    expect(real.weth.size).toBe(0)
    const simulated = followed5042(loadConfig({}))
    expect([...simulated.attribution!.pads].sort()).toEqual(simLaunchpads(5042).sort())
    expect(simulated.attribution!.factories).toEqual(new Set([...simContracts(5042).v2Factories, ...simContracts(5042).v3Factories]))
    expect(() => loadConfig({ CHAIN_5042_LAUNCHPADS: '0x12' })).toThrow('invalid CHAIN_5042_LAUNCHPADS="0x12": expected a comma list of 0x addresses')
  })
})
