import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../core/config.ts'
import { followed5042 } from '../../bin/follow.ts'
import { emptyArcState } from '../../pipelines/process/arc-rows.ts'
import { chainRows, memoryRowsState } from '../../pipelines/process/chain-rows.ts'
import { createChainSimulator, DEFAULT_START_TIME } from '../../pipelines/sim/chain-sim.ts'
import { simLaunchpads, withPadLaunches } from '../../pipelines/sim/launchpads.ts'

describe('arc rows (launch attribution)', () => {
  const follow = followed5042(loadConfig({}))
  const sim = createChainSimulator({ chainId: 5042, seed: 9705, startTime: DEFAULT_START_TIME, blockTimeSec: 2 })
  const blocks = Array.from({ length: 400 }, () => withPadLaunches(sim.nextBlock(), simLaunchpads(5042)))
  const table = (t: Awaited<ReturnType<typeof chainRows>>, name: string) => t.tables.find(([n]) => n === name)![1]

  it('a batch formed again before its commit gives the same rows; after the commit its launches are not launched again', async () => {
    const state = { ...memoryRowsState(follow), arc: emptyArcState() }
    const pools = state.pools
    const first = await chainRows(5042, blocks, state)
    // chainRows registers pools as it goes (a retry sees them already): a fresh state but the same pools.
    const again = await chainRows(5042, blocks, { ...memoryRowsState(follow), pools, arc: state.arc })
    for (const name of ['arc_launches', 'arc_first_pools', 'arc_token_activity', 'arc_balance_deltas', 'arc_venue_stats', 'arc_deployer_venues']) {
      expect(table(again, name), name).toEqual(table(first, name))
    }
    const launches = table(first, 'arc_launches')
    expect(launches.length).toBeGreaterThan(0)
    expect(new Set(launches.map((l) => l.via_kind))).toEqual(new Set(['pad', 'direct']))
    first.commit()
    expect(state.arc.tokens.size).toBe(launches.length)
    const replay = await chainRows(5042, blocks, state)
    expect(table(replay, 'arc_launches')).toEqual([])
    expect(state.arc.venues.get('*')!.launches).toBe(launches.length)
  })

  it('a pad launch is attributed by the transaction sent to the pad, a direct one has no via; the deployer is the tx sender', async () => {
    const state = { ...memoryRowsState(follow), arc: emptyArcState() }
    const launches = table(await chainRows(5042, blocks, state), 'arc_launches')
    for (const l of launches) {
      const b = blocks.find((x) => x.number === l.block_number)!
      const txLogs = b.logs.filter((x) => x.txHash === l.tx_hash)
      if (l.via_kind === 'pad') expect(txLogs.some((x) => x.txTo === l.via && x.address === l.via)).toBe(true)
      else expect(b.creations.some((c) => c.address === l.token && c.deployer === l.deployer)).toBe(true)
      expect(txLogs.every((x) => x.txFrom === l.deployer)).toBe(true)
    }
  })
})
