import { describe, expect, it } from 'vitest'
import type { DeployerStateRow } from '../../products/token/deployer-state.ts'
import { createTopDeployers, deployerRankOrder } from '../../products/token/top-deployers.ts'

const row = (deployer: string, score: number, real = 0, launched = 1): DeployerStateRow => ({
  deployer, launched, real, dead: 0, insider_prep_count: 0, best_token: '', best_symbol: '', best_volume: '0', score, band: '',
})

/** A deployer_state of our own: the newest row by deployer, reads counted. */
function stateOf(rows: DeployerStateRow[]) {
  const state = new Map(rows.map((r) => [r.deployer, r]))
  const reads = { top: 0, some: [] as string[][] }
  const ranked = () => [...state.values()].filter((r) => r.launched > 0).sort(deployerRankOrder)
  const read = {
    async top(k: number) {
      reads.top++
      return ranked().slice(0, k)
    },
    async some(deployers: string[]) {
      reads.some.push(deployers)
      return new Map(deployers.map((d) => [d, state.get(d) ?? null] as const))
    },
  }
  return { state, reads, read, ranked }
}

const names = (rs: DeployerStateRow[]) => rs.map((r) => r.deployer)

describe('the leaderboard top kept from the deployers each change names (products/token/top-deployers.ts)', () => {
  it('ranks by score, then real, then launched, then deployer', () => {
    const rs = [row('b', 5, 1, 2), row('a', 5, 1, 2), row('c', 5, 2, 1), row('d', 7), row('e', 5, 1, 3)]
    expect(names(rs.sort(deployerRankOrder))).toEqual(['d', 'c', 'e', 'a', 'b'])
  })

  it('a change below the cut costs a keyed read and no sort of every deployer; one above it enters the list', async () => {
    const db = stateOf(Array.from({ length: 50 }, (_, i) => row(`d${String(i).padStart(2, '0')}`, i)))
    const top = createTopDeployers(db.read, 3)
    expect(names(await top.list(3))).toEqual(['d49', 'd48', 'd47'])
    expect(db.reads.top).toBe(1)
    db.state.set('d01', row('d01', 2))
    top.changed(['d01'])
    expect(names(await top.list(3))).toEqual(['d49', 'd48', 'd47'])
    db.state.set('d02', row('d02', 60))
    top.changed(['d02'])
    expect(names(await top.list(3))).toEqual(['d02', 'd49', 'd48'])
    expect(db.reads.top).toBe(1)
    expect(db.reads.some).toEqual([['d01'], ['d02']])
  })

  it('when more than half the kept rows fall below the cut, the top is read again', async () => {
    const db = stateOf(Array.from({ length: 20 }, (_, i) => row(`d${String(i).padStart(2, '0')}`, i)))
    const top = createTopDeployers(db.read, 2)
    await top.list(2)
    for (const d of ['d19', 'd18', 'd17']) db.state.set(d, row(d, -1))
    top.changed(['d19', 'd18', 'd17'])
    expect(names(await top.list(2))).toEqual(['d16', 'd15'])
    expect(db.reads.top).toBe(2)
  })

  it('after random changes, launches taken away and resets, it always equals a sort of every deployer', async () => {
    let seed = 7
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n)
    const db = stateOf(Array.from({ length: 40 }, (_, i) => row(`d${i}`, rand(10), rand(3), 1 + rand(3))))
    for (const serve of [1, 5, 30]) {
      const top = createTopDeployers(db.read, serve)
      for (let step = 0; step < 300; step++) {
        const changed = Array.from({ length: 1 + rand(4) }, () => `d${rand(60)}`)
        for (const d of changed) db.state.set(d, row(d, rand(10), rand(3), rand(4)))
        if (rand(50) === 0) top.reset()
        else top.changed(changed)
        expect(names(await top.list(serve)), `serve ${serve}, step ${step}`).toEqual(names(db.ranked().slice(0, serve)))
      }
    }
  })

  it('refuses a longer list than it keeps', async () => {
    const top = createTopDeployers(stateOf([row('a', 1)]).read, 2)
    await expect(top.list(3)).rejects.toThrow(RangeError)
  })
})
