import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { HolderLabel } from './holder-labels.ts'
import { balancesAt, tokenFacts, tokenPools } from './holder-balances.ts'
import { snapshotAppearances, type Appearance } from './scan-results.ts'
import { entityLabels } from './structure-report.ts'
import { identityHandles } from './wallet-records.ts'

/**
 * A wallet's entity and its appearances across the holder-snapshot archive (GET /entity/{address}).
 *
 * The entity rule and id are the holder structure's (products/structure/holder-labels.ts): in one token,
 * wallets linked by direct off-market transfers, not through the deployer or a hub; the id is the
 * lowest address. Across tokens, the wallet's entity is the union of its entities in the tokens
 * whose snapshots it appears in (a wallet linked to A in one token and to B in another makes one
 * entity of the three), with the same id rule. Every read is by key: the wallets' rows of
 * snapshot_holdings, and per token the links, pools and balances of those wallets.
 */

/** Tokens of the archive followed per answer, most recent appearance first. */
export const ENTITY_TOKENS_LIMIT = 50
/** Wallets listed per entity. */
export const ENTITY_WALLETS_LIMIT = 100
/** Snapshots listed per (wallet, token), newest first. */
export const ENTITY_SNAPSHOTS_PER_TOKEN = 30

export interface EntityAppearance {
  wallet: string
  token: string
  /** The snapshots naming the wallet, newest first: its balance then and its labels then. */
  snapshots: Array<{ measured_through_block: number; balance_wei: string; labels: HolderLabel[] }>
  balance_now_wei: string
  /** The insider record of the newest snapshot, or null. */
  insider: Extract<HolderLabel, { kind: 'insider' }> | null
  /** Whether the wallet is the token's deployer. */
  deployer: boolean
}

export interface EntityRecord {
  address: string
  found: boolean
  entity: { entity_id: string; wallets: string[]; truncated: boolean } | null
  identities: Record<string, string>
  appearances: EntityAppearance[]
}

function byToken(rows: Appearance[]): Map<string, Appearance[]> {
  const out = new Map<string, Appearance[]>()
  for (const r of rows) out.set(r.token, [...(out.get(r.token) ?? []), r])
  return out
}

export async function entityRecord(ch: ClickHouseClient, chainId: number, address: string, throughBlock: number): Promise<EntityRecord> {
  const own = await snapshotAppearances(ch, chainId, [address], 1)
  const tokens = [...own].sort((a, b) => b.toBlock - a.toBlock).map((a) => a.token).slice(0, ENTITY_TOKENS_LIMIT)

  // The wallet's entity in each token it appears in, by the structure's rule; their union.
  const facts = new Map(await Promise.all(tokens.map(async (t) => [t, await tokenFacts(ch, chainId, t)] as const)))
  const members = new Set<string>([address])
  for (const token of tokens) {
    const f = facts.get(token)!
    const pools = (await tokenPools(ch, chainId, token, throughBlock)).map((p) => p.pool)
    const deployer = f.deployer && (f.createdBlock ?? 0) <= throughBlock ? f.deployer : null
    const entities = await entityLabels(ch, chainId, token, [address], throughBlock, pools, deployer)
    const mine = entities.get(address)
    if (mine) for (const [w, e] of entities) if (e.entityId === mine.entityId) members.add(w)
  }
  const all = [...members].sort()
  const wallets = all.slice(0, ENTITY_WALLETS_LIMIT)
  if (!wallets.includes(address)) wallets[wallets.length - 1] = address

  const appearances = await snapshotAppearances(ch, chainId, wallets, ENTITY_SNAPSHOTS_PER_TOKEN)
  const grouped = byToken(appearances)
  const now = new Map<string, Map<string, bigint>>()
  await Promise.all(
    [...grouped].map(async ([token, rows]) => now.set(token, await balancesAt(ch, chainId, token, throughBlock, [...new Set(rows.map((r) => r.wallet))]))),
  )
  const deployers = new Map(await Promise.all([...grouped.keys()].map(async (t) => [t, facts.get(t)?.deployer ?? (await tokenFacts(ch, chainId, t)).deployer] as const)))
  const identities = await identityHandles(ch, chainId, wallets)

  const out: EntityAppearance[] = []
  for (const [token, rows] of grouped) {
    const perWallet = new Map<string, Appearance[]>()
    for (const r of rows) perWallet.set(r.wallet, [...(perWallet.get(r.wallet) ?? []), r])
    for (const [wallet, snaps] of perWallet) {
      snaps.sort((x, y) => y.toBlock - x.toBlock)
      const insider = snaps[0]!.labels.find((l): l is Extract<HolderLabel, { kind: 'insider' }> => l.kind === 'insider') ?? null
      out.push({
        wallet,
        token,
        snapshots: snaps.map((s) => ({ measured_through_block: s.toBlock, balance_wei: s.balanceWei.toString(), labels: s.labels })),
        balance_now_wei: (now.get(token)?.get(wallet) ?? 0n).toString(),
        insider,
        deployer: deployers.get(token) === wallet,
      })
    }
  }
  out.sort((x, y) => y.snapshots[0]!.measured_through_block - x.snapshots[0]!.measured_through_block || (x.token < y.token ? -1 : x.token > y.token ? 1 : x.wallet < y.wallet ? -1 : 1))
  return {
    address,
    found: own.length > 0,
    entity: all.length >= 2 ? { entity_id: all[0]!, wallets, truncated: all.length > wallets.length } : null,
    identities: Object.fromEntries(identities),
    appearances: out,
  }
}
