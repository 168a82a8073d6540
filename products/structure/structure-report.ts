import type { ClickHouseClient } from '../../core/clickhouse.ts'
import {
  ENTITY_HUB_DEGREE,
  ENTITY_MAX_DEPTH,
  ENTITY_MAX_WALLETS,
  entitiesOf,
  insidersOf,
  roundAllocationsOf,
  shareOf,
  type HolderLabel,
} from './holder-labels.ts'
import { STRUCTURE_LARGE_HOLDERS, structureVerdict, type StructureVerdict } from './structure-verdict.ts'
import {
  balancesBetween,
  blockAt,
  DAY_SECONDS,
  firstIngestedBlock,
  holderWindow,
  latestBlockAtOrBefore,
  structureInputs,
  transfersBefore,
  walletLinks,
  type BlockRef,
} from './holder-balances.ts'
import { identityHandles, smartHolderRecords } from './wallet-records.ts'

/** Holders listed in `holders.top`. */
export const STRUCTURE_TOP_HOLDERS = 50
/** Wallets listed in `diff.wallets`. */
export const STRUCTURE_DIFF_LIMIT = 1000

export type WalletClass = 'frozen' | 'added' | 'trimmed' | 'exited'

export interface StructureHolder {
  address: string
  balance_wei: string
  /** balance / supply, a decimal string (9 digits). */
  share: string
  labels: HolderLabel[]
}

export interface StructureDiffWallet {
  address: string
  class: WalletClass
  balance_then_wei: string
  balance_now_wei: string
  delta_wei: string
  new_holder: boolean
  labels: HolderLabel[]
}

/** The whole /structure/{token} answer (the API serves it as is; a scan worker stores it). */
export interface StructureAnswer {
  signal: StructureVerdict
  data: {
    token: string
    /** false when the chain has no creation, transfer or pool of this token through the window end. */
    found: boolean
    measured_through_block: number
    window: { from_block: number; from_time: string; to_block: number; to_time: string }
    holders: { count: number; top: StructureHolder[] }
    diff: {
      summary: { frozen: number; added: number; trimmed: number; exited: number }
      wallets: StructureDiffWallet[]
      total: number
      truncated: boolean
    }
    pools: Array<{ address: string; balance_wei: string }>
  }
}

export class StructureBlockMissing extends Error {
  constructor(readonly block: number) {
    super(`block ${block} is not ingested`)
  }
}

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z')

export function classOf(then: bigint, now: bigint): WalletClass {
  if (now === then) return 'frozen'
  if (now > then) return 'added'
  return now > 0n ? 'trimmed' : 'exited'
}

/**
 * The 24 h window ending at `toBlock`: its baseline is the latest block whose timestamp is at
 * most 86,400 s before toBlock's (`full`); without one (less than 24 h of history) the window
 * starts at the first ingested block and is not full.
 */
export async function structureWindow(ch: ClickHouseClient, chainId: number, toBlock: number, end?: BlockRef): Promise<{ from: BlockRef; to: BlockRef; full: boolean }> {
  const to = end ?? (await blockAt(ch, chainId, toBlock))
  if (!to) throw new StructureBlockMissing(toBlock)
  const baseline = await latestBlockAtOrBefore(ch, chainId, to.timestamp - DAY_SECONDS)
  if (baseline) return { from: baseline, to, full: true }
  const first = (await firstIngestedBlock(ch, chainId)) ?? to
  return { from: first.number <= to.number ? first : to, to, full: false }
}

/** The answer's fields that name its window (all that changes when the window slides over blocks without the token). */
export function windowFields(window: { from: BlockRef; to: BlockRef }): Pick<StructureAnswer['data'], 'measured_through_block' | 'window'> {
  return {
    measured_through_block: window.to.number,
    window: { from_block: window.from.number, from_time: iso(window.from.timestamp), to_block: window.to.number, to_time: iso(window.to.timestamp) },
  }
}

/**
 * Entities of `wallets`: follow their off-market links (not to pools or the zero address) by
 * key, ENTITY_MAX_DEPTH rounds at most, not through the deployer or a hub.
 */
export async function entityLabels(
  ch: ClickHouseClient,
  chainId: number,
  token: string,
  wallets: string[],
  toBlock: number,
  pools: string[],
  deployer: string | null,
): Promise<Map<string, { entityId: string; wallets: number }>> {
  const exclude = [...pools, '0x0000000000000000000000000000000000000000']
  const hubs = new Set<string>(deployer ? [deployer] : [])
  const seen = new Set<string>(wallets)
  const edges: Array<{ wallet: string; peer: string }> = []
  let frontier = wallets.filter((w) => !hubs.has(w))
  for (let depth = 0; depth < ENTITY_MAX_DEPTH && frontier.length > 0; depth++) {
    const links = await walletLinks(ch, chainId, token, frontier, toBlock, exclude)
    const degree = new Map<string, number>()
    for (const l of links) degree.set(l.wallet, (degree.get(l.wallet) ?? 0) + 1)
    for (const [w, n] of degree) if (n > ENTITY_HUB_DEGREE) hubs.add(w)
    const next: string[] = []
    for (const l of links) {
      if (hubs.has(l.wallet)) continue
      edges.push(l)
      if (!seen.has(l.peer) && seen.size < ENTITY_MAX_WALLETS) {
        seen.add(l.peer)
        next.push(l.peer)
      }
    }
    frontier = next.filter((w) => !hubs.has(w))
  }
  return entitiesOf(edges, hubs)
}

/**
 * The holder structure of `token` over the 24 h window ending at `toBlock` (the served block,
 * or an earlier one): holders and their balances at the end, the diff against the baseline,
 * the pools apart, every listed wallet labelled, and the verdict. Every read is by key
 * (products/structure/holder-balances.ts); nothing depends on the API, so a scan worker calls it too.
 */
export async function structureReport(ch: ClickHouseClient, chainId: number, token: string, toBlock: number): Promise<StructureAnswer> {
  return (await structureReportOverWindow(ch, chainId, token, toBlock)).answer
}

/**
 * structureReport, with the window's first block with a balance change of the token (null: none):
 * the answer holds while its window's start moves over blocks before that one (and nothing
 * touches the token), what an answer kept per token is dropped by.
 */
export async function structureReportOverWindow(
  ch: ClickHouseClient,
  chainId: number,
  token: string,
  toBlock: number,
  reads: { transfersBefore: typeof transfersBefore } = { transfersBefore },
): Promise<{ answer: StructureAnswer; firstChange: number | null }> {
  token = token.toLowerCase()
  const facts = await structureInputs(ch, chainId, token, toBlock)
  if (!facts.to) throw new StructureBlockMissing(toBlock)
  const window = await structureWindow(ch, chainId, toBlock, facts.to)
  const pools = facts.pools
  const poolSet = new Set(pools)
  const deployer = facts.deployer && (facts.createdBlock ?? 0) <= toBlock ? facts.deployer : null
  const firstSwap = facts.firstSwapBlock !== null && facts.firstSwapBlock <= toBlock ? facts.firstSwapBlock : toBlock + 1
  const [w, preSwap] = await Promise.all([
    holderWindow(ch, chainId, token, { fromBlock: window.from.number, toBlock }, { pools, top: STRUCTURE_TOP_HOLDERS, diffLimit: STRUCTURE_DIFF_LIMIT }),
    // Insiders and round allocations: the token's off-market transfers before its first swap.
    reads.transfersBefore(ch, chainId, token, firstSwap),
  ])
  const insiders = insidersOf(deployer, poolSet, preSwap)
  const rounds = roundAllocationsOf(deployer, poolSet, preSwap, w.supply, facts.decimals)

  // The verdict's inputs: the large holders (largest at the baseline, and insiders) and the
  // largest now, at both ends.
  const largeWallets = [...new Set([...w.topThen.slice(0, STRUCTURE_LARGE_HOLDERS).map((h) => h.wallet), ...insiders.keys()])].filter((x) => !poolSet.has(x))
  const topNowWallets = w.top.slice(0, STRUCTURE_LARGE_HOLDERS).map((h) => h.wallet)
  const judged = [...new Set([...largeWallets, ...topNowWallets])]
  // Labels of every listed wallet, read together with the judged balances.
  const listed = [...new Set([...w.top.map((h) => h.wallet), ...w.wallets.map((x) => x.wallet)])]
  const [judgedBalances, entities, handles, smart] = await Promise.all([
    balancesBetween(ch, chainId, token, { fromBlock: window.from.number, toBlock }, judged),
    entityLabels(ch, chainId, token, listed, toBlock, pools, deployer),
    identityHandles(ch, chainId, listed),
    smartHolderRecords(ch, chainId, listed),
  ])
  const both = (x: string) => judgedBalances.get(x) ?? { then: 0n, now: 0n }
  const judgement = structureVerdict({
    holders: w.holders,
    fullWindow: window.full,
    supply: w.supply,
    large: largeWallets.map(both),
    topNow: topNowWallets.map(both),
    grew: w.grew,
    pools: { then: w.poolsThen, now: w.pools.reduce((a, p) => a + p.balance, 0n) },
    exited: w.exited,
    newHolders: w.newHolders,
  })

  const labelsOf = (x: string): HolderLabel[] => {
    const out: HolderLabel[] = []
    if (x === deployer) out.push({ kind: 'deployer' })
    const ins = insiders.get(x)
    if (ins) out.push({ kind: 'insider', from: ins.from, received_wei: ins.received.toString(), block: ins.block })
    const ent = entities.get(x)
    if (ent) out.push({ kind: 'entity', entity_id: ent.entityId, wallets: ent.wallets })
    const r = rounds.get(x)
    if (r) out.push({ kind: 'round_allocation', received_wei: r.received.toString(), share: r.share })
    const h = handles.get(x)
    if (h) out.push({ kind: 'identity', handle: h })
    const s = smart.get(x)
    if (s) out.push({ kind: 'smart', basis: s.basis })
    return out
  }

  const found = deployer !== null || w.total > 0 || pools.length > 0
  const answer: StructureAnswer = {
    signal: judgement.verdict,
    data: {
      token,
      found,
      ...windowFields(window),
      holders: {
        count: w.holders,
        top: w.top.map((h) => ({ address: h.wallet, balance_wei: h.balance.toString(), share: shareOf(h.balance, w.supply), labels: labelsOf(h.wallet) })),
      },
      diff: {
        summary: w.summary,
        wallets: w.wallets.map((x) => ({
          address: x.wallet,
          class: classOf(x.then, x.now),
          balance_then_wei: x.then.toString(),
          balance_now_wei: x.now.toString(),
          delta_wei: x.delta.toString(),
          new_holder: x.then === 0n && x.now > 0n,
          labels: labelsOf(x.wallet),
        })),
        total: w.total,
        truncated: w.total > w.wallets.length,
      },
      pools: w.pools.map((p) => ({ address: p.pool, balance_wei: p.balance.toString() })),
    },
  }
  return { answer, firstChange: w.firstChange }
}
