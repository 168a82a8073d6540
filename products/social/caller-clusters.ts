import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { mutualClusters } from './caller-grade.ts'
import { chunks } from '../../core/chunks.ts'

/**
 * Mutual-follow clusters kept per account (account_clusters, migration 015). When follow
 * snapshots of some accounts arrive, only the clusters that can have changed are recomputed:
 * the accounts' old clusters (an edge removed may split one) and, walking mutual edges from
 * there, the components they belong to now (an edge added may join two). The rule itself is
 * mutualClusters (products/social/caller-grade.ts), applied to that part of the graph.
 */

/** Keys per IN list: bounds query size whatever the pass. */
const CHUNK = 2_000

/** Each account's latest follow list: follow_snapshots by its (account, observed_at) key. */
async function followingOf(ch: ClickHouseClient, accounts: string[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>()
  for (const part of chunks(accounts, CHUNK)) {
    const rows = await queryRows<{ account: string; following: string[] }>(
      ch,
      'SELECT account, argMax(following, observed_at) AS following FROM follow_snapshots WHERE account IN {a:Array(String)} GROUP BY account',
      { a: part },
    )
    for (const r of rows) out.set(r.account, new Set(r.following))
  }
  return out
}

/** The stored cluster of each account ('' when none or never stored): account_clusters by key. */
export async function storedClusters(ch: ClickHouseClient, accounts: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (const part of chunks(accounts, CHUNK)) {
    const rows = await queryRows<{ account: string; cluster: string }>(
      ch,
      'SELECT account, argMax(cluster, version) AS cluster FROM account_clusters WHERE account IN {a:Array(String)} GROUP BY account',
      { a: part },
    )
    for (const r of rows) out.set(r.account, r.cluster)
  }
  return out
}

/** Current members of the given clusters: candidates through the by_cluster projection, kept when still members. */
async function membersOf(ch: ClickHouseClient, clusters: string[]): Promise<string[]> {
  if (clusters.length === 0) return []
  const candidates: string[] = []
  for (const part of chunks(clusters, CHUNK)) {
    const rows = await queryRows<{ account: string }>(ch, 'SELECT DISTINCT account FROM account_clusters WHERE cluster IN {c:Array(String)}', { c: part })
    candidates.push(...rows.map((r) => r.account))
  }
  const wanted = new Set(clusters)
  const current = await storedClusters(ch, candidates)
  return candidates.filter((a) => wanted.has(current.get(a) ?? ''))
}

/** Write the clusters that differ from the stored ones; answers the accounts written. */
async function writeChanged(ch: ClickHouseClient, target: Map<string, string>, version: number): Promise<string[]> {
  const stored = await storedClusters(ch, [...target.keys()])
  const changed = [...target].filter(([a, c]) => (stored.get(a) ?? '') !== c)
  for (const part of chunks(changed, CHUNK)) {
    await ch.insert({ table: 'account_clusters', values: part.map(([account, cluster]) => ({ account, cluster, version })), format: 'JSONEachRow' })
  }
  return changed.map(([a]) => a)
}

/**
 * Recompute the clusters around `accounts` (whose follow snapshots changed) and store those that
 * changed. Reads are by key: the accounts' old clusters, then a walk over mutual edges, one
 * frontier at a time, reading the follow lists of the accounts reached.
 */
export async function refreshClusters(ch: ClickHouseClient, accounts: string[], version: number): Promise<string[]> {
  if (accounts.length === 0) return []
  const old = await storedClusters(ch, accounts)
  const visited = new Set([...accounts, ...(await membersOf(ch, [...new Set([...old.values()].filter(Boolean))]))])
  const following = new Map<string, Set<string>>()
  let frontier = [...visited]
  while (frontier.length) {
    for (const [a, f] of await followingOf(ch, frontier.filter((a) => !following.has(a)))) following.set(a, f)
    // Whom the frontier follows: a mutual edge needs their lists too.
    const followed = [...new Set(frontier.flatMap((a) => [...(following.get(a) ?? [])]))].filter((b) => !following.has(b))
    for (const [b, f] of await followingOf(ch, followed)) following.set(b, f)
    const next: string[] = []
    for (const a of frontier) {
      for (const b of following.get(a) ?? []) {
        if (!visited.has(b) && following.get(b)?.has(a)) {
          visited.add(b)
          next.push(b)
        }
      }
    }
    frontier = next
  }
  // Components of visited accounts are closed under mutual edges (the walk followed every one),
  // so their cluster ids are exact; other accounts in `following` are not written.
  const clusters = mutualClusters(following)
  return writeChanged(ch, new Map([...visited].map((a) => [a, clusters.get(a) ?? ''])), version)
}

/** The one-time build: every account's cluster from every account's latest snapshot. */
export async function rebuildClusters(ch: ClickHouseClient, version: number): Promise<string[]> {
  const rows = await queryRows<{ account: string; following: string[] }>(
    ch,
    'SELECT account, argMax(following, observed_at) AS following FROM follow_snapshots GROUP BY account',
  )
  const clusters = mutualClusters(new Map(rows.map((r) => [r.account, new Set(r.following)])))
  return writeChanged(ch, clusters, version)
}
