import { keptFromChanges } from '../../core/serving/kept-from-changes.ts'
import type { DeployerStateRow } from './deployer-state.ts'

/** The leaderboard's order: score, then real tokens, then launches (each descending), then deployer. */
export function deployerRankOrder(a: DeployerStateRow, b: DeployerStateRow): number {
  return (
    Number(b.score) - Number(a.score) ||
    Number(b.real) - Number(a.real) ||
    Number(b.launched) - Number(a.launched) ||
    (a.deployer < b.deployer ? -1 : a.deployer > b.deployer ? 1 : 0)
  )
}

export interface TopDeployers {
  /** The first `limit` deployers with a launch in rank order (`limit` at most the `serve` it was made for). */
  list(limit: number): Promise<DeployerStateRow[]>
  /** These deployers' rows changed: read them again by key before the list is given again. */
  changed(deployers: Iterable<string>): void
  /** Everything may have changed (a first sync, a rebuild, a reorg): read the top again. */
  reset(): void
}

/** The kept top: rows in rank order; `all` when they are every deployer with a launch. */
interface Top {
  rows: DeployerStateRow[]
  all: boolean
}

/**
 * The leaderboard's top deployers, read once (the top `2 × serve` of deployer_state), then kept
 * exact from the deployers each change names, read by key (core/serving/kept-from-changes.ts):
 * a batch costs a keyed read of the deployers it changed, not a sort of every deployer.
 *
 * Why it stays exact: every deployer outside the kept rows ranks after the last kept one (the
 * cut), and only named deployers changed. After a change, the unnamed kept rows plus the named
 * deployers that now rank at or before the cut are exactly every deployer ranking at or before
 * it, so they are the true top of that many. While that is at least `serve` rows they answer;
 * when more than half of the kept rows fell below the cut, the top is read again. Memory: at most
 * `2 × serve` rows.
 */
export function createTopDeployers(
  read: {
    /** The first `k` deployers with a launch in rank order. */
    top(k: number): Promise<DeployerStateRow[]>
    /** The current rows of `deployers` (absent or null: no row). */
    some(deployers: string[]): Promise<Map<string, DeployerStateRow | null>>
  },
  serve: number,
): TopDeployers {
  const keep = 2 * serve
  const whole = async (): Promise<Top> => {
    const rows = await read.top(keep)
    return { rows, all: rows.length < keep }
  }
  const top = keptFromChanges<Top>({
    whole,
    async update(kept, deployers) {
      const named = new Set(deployers)
      const found = await read.some(deployers)
      const cut = kept.all ? undefined : kept.rows.at(-1)
      const rows = kept.rows.filter((r) => !named.has(r.deployer))
      for (const d of deployers) {
        const r = found.get(d)
        if (r && Number(r.launched) > 0 && (cut === undefined || deployerRankOrder(r, cut) <= 0)) rows.push(r)
      }
      rows.sort(deployerRankOrder)
      if (kept.all) return { rows: rows.slice(0, keep), all: rows.length <= keep }
      if (rows.length < serve) return whole()
      return { rows: rows.slice(0, keep), all: false }
    },
  })
  return {
    async list(limit) {
      if (limit > serve) throw new RangeError(`the top is kept for ${serve} deployers, not ${limit}`)
      return (await top.value()).rows.slice(0, limit)
    },
    changed: (deployers) => top.changed(deployers),
    reset: () => top.reset(),
  }
}
