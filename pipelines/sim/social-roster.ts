/**
 * Who is who in the simulated social world. The roles are the simulation's ground truth, spelled
 * in the handles on purpose so that a reader (or a test) can check the grades the pipeline gives
 * against what each account was built to do. Handles do not depend on the seed.
 *
 *  - early_01..early_12: mention tokens that will be popular within minutes of launch, before
 *    they become real; early_01 is the most skilled, early_12 the least (more false calls).
 *  - late_01..late_15: mention tokens once they have traded a lot for a while (momentum).
 *  - noise_01..noise_20: mention random recent tokens, duds and rugs included.
 *  - ring_a1..a4, ring_b1..b5, ring_c1..c4: three coordinated clusters; members follow each
 *    other mutually and mention the same token within minutes of each other.
 *  - principal_01..principal_08: watched accounts whose follows are reported; they post nothing.
 *  - anon_01..anon_40: the untracked crowd, mostly bare cashtags.
 */
export type CallerRole = 'early' | 'late' | 'noise' | 'cluster'

export interface SimCaller {
  handle: string
  role: CallerRole
  /** 'a', 'b' or 'c' for cluster members, else null. */
  cluster: string | null
  /** 0..1: how well the account does what its role says (early: share of right calls). */
  skill: number
}

const pad = (n: number) => String(n).padStart(2, '0')

function build(): SimCaller[] {
  const out: SimCaller[] = []
  for (let i = 1; i <= 12; i++) out.push({ handle: `early_${pad(i)}`, role: 'early', cluster: null, skill: 0.95 - ((i - 1) * 0.4) / 11 })
  for (let i = 1; i <= 15; i++) out.push({ handle: `late_${pad(i)}`, role: 'late', cluster: null, skill: 0.8 - ((i - 1) * 0.4) / 14 })
  for (let i = 1; i <= 20; i++) out.push({ handle: `noise_${pad(i)}`, role: 'noise', cluster: null, skill: 0 })
  for (const [cluster, size] of [['a', 4], ['b', 5], ['c', 4]] as const) {
    for (let i = 1; i <= size; i++) out.push({ handle: `ring_${cluster}${i}`, role: 'cluster', cluster, skill: 0 })
  }
  return out
}

/** The 60 callers, tracked (their follows are polled) but not watched. */
export const SIM_CALLERS: readonly SimCaller[] = Object.freeze(build())

/** The 8 watched principals. */
export const SIM_PRINCIPALS: readonly string[] = Object.freeze(Array.from({ length: 8 }, (_, i) => `principal_${pad(i + 1)}`))

/** Untracked accounts: they post, are followed, and are never polled. */
export const SIM_CROWD: readonly string[] = Object.freeze(Array.from({ length: 40 }, (_, i) => `anon_${pad(i + 1)}`))

/** Caller handles of one cluster. */
export function clusterMembers(cluster: string): string[] {
  return SIM_CALLERS.filter((c) => c.cluster === cluster).map((c) => c.handle)
}
