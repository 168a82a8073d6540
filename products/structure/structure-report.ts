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
  ZERO_ADDRESS,
} from './holder-labels.ts'
import { STRUCTURE_LARGE_HOLDERS, structureVerdict, type StructureVerdict } from './structure-verdict.ts'
import {
  balancesBetweenOf,
  blockAt,
  DAY_SECONDS,
  firstIngestedBlock,
  holderWindows,
  latestBlockAtOrBefore,
  structureInputsOf,
  transfersBeforeOf,
  walletLinksOf,
  type BlockRef,
  type HolderWindow,
  type StructureInputs,
} from './holder-balances.ts'
import { identityHandles, smartHolderRecords, type SmartRecord } from './wallet-records.ts'

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

/** What the entity rule starts from in one token: the wallets to label, the token's pools and its deployer. */
export interface EntityAsk {
  wallets: string[]
  pools: string[]
  deployer: string | null
}

/**
 * Entities of each token's wallets: follow their off-market links (not to pools or the zero
 * address) by key, ENTITY_MAX_DEPTH rounds at most, not through the deployer or a hub. One read
 * per round for all the tokens.
 */
export async function entityLabelsOf(
  ch: ClickHouseClient,
  chainId: number,
  asks: Map<string, EntityAsk>,
  toBlock: number,
): Promise<Map<string, Map<string, { entityId: string; wallets: number }>>> {
  const state = new Map(
    [...asks].map(([token, a]) => {
      const hubs = new Set<string>(a.deployer ? [a.deployer] : [])
      return [token, { hubs, seen: new Set(a.wallets), edges: [] as Array<{ wallet: string; peer: string }>, exclude: [...a.pools, ZERO_ADDRESS], frontier: a.wallets.filter((w) => !hubs.has(w)) }]
    }),
  )
  for (let depth = 0; depth < ENTITY_MAX_DEPTH; depth++) {
    const round = new Map([...state].filter(([, s]) => s.frontier.length > 0).map(([token, s]) => [token, { wallets: s.frontier, exclude: s.exclude }]))
    if (round.size === 0) break
    const links = await walletLinksOf(ch, chainId, round, toBlock)
    const byToken = new Map<string, Array<{ wallet: string; peer: string }>>([...round.keys()].map((t) => [t, []]))
    for (const l of links) byToken.get(l.token)!.push(l)
    for (const [token, tokenLinks] of byToken) {
      const s = state.get(token)!
      const degree = new Map<string, number>()
      for (const l of tokenLinks) degree.set(l.wallet, (degree.get(l.wallet) ?? 0) + 1)
      for (const [w, n] of degree) if (n > ENTITY_HUB_DEGREE) s.hubs.add(w)
      const next: string[] = []
      for (const l of tokenLinks) {
        if (s.hubs.has(l.wallet)) continue
        s.edges.push({ wallet: l.wallet, peer: l.peer })
        if (!s.seen.has(l.peer) && s.seen.size < ENTITY_MAX_WALLETS) {
          s.seen.add(l.peer)
          next.push(l.peer)
        }
      }
      s.frontier = next.filter((w) => !s.hubs.has(w))
    }
  }
  return new Map([...state].map(([token, s]) => [token, entitiesOf(s.edges, s.hubs)]))
}

/** entityLabelsOf for one token. */
export async function entityLabels(
  ch: ClickHouseClient,
  chainId: number,
  token: string,
  wallets: string[],
  toBlock: number,
  pools: string[],
  deployer: string | null,
): Promise<Map<string, { entityId: string; wallets: number }>> {
  return (await entityLabelsOf(ch, chainId, new Map([[token, { wallets, pools, deployer }]]), toBlock)).get(token)!
}

/**
 * The holder structure of `token` over the 24 h window ending at `toBlock` (the served block,
 * or an earlier one): holders and their balances at the end, the diff against the baseline,
 * the pools apart, every listed wallet labelled, and the verdict. Every read is by key
 * (products/structure/holder-balances.ts); nothing depends on the API, so a scan worker calls it too.
 */
export async function structureReport(ch: ClickHouseClient, chainId: number, token: string, toBlock: number): Promise<StructureAnswer> {
  token = token.toLowerCase()
  return (await structureReports(ch, chainId, [token], toBlock)).get(token)!.answer
}

/** A structure answer with the window's first block with a balance change of its token (null: none). */
export interface StructureComputation {
  answer: StructureAnswer
  /**
   * The answer holds while its window's start moves over blocks before this one (and nothing
   * touches the token): what an answer kept per token is dropped by.
   */
  firstChange: number | null
}

/**
 * structureReport for several tokens (lowercase) at one window end, with each answer's first
 * change: every read is made once for all of them (one statement per part, not one per token),
 * so a batch of tokens costs the engine about what one does. `reads.transfersBefore` may serve
 * the pre-swap transfers from a cache (they never change until a reorg).
 */
export async function structureReports(
  ch: ClickHouseClient,
  chainId: number,
  tokens: string[],
  toBlock: number,
  reads: { transfersBefore: typeof transfersBeforeOf } = { transfersBefore: transfersBeforeOf },
): Promise<Map<string, StructureComputation>> {
  const inputs = await structureInputsOf(ch, chainId, tokens, toBlock)
  if (!inputs.to) throw new StructureBlockMissing(toBlock)
  const window = await structureWindow(ch, chainId, toBlock, inputs.to)
  const range = { fromBlock: window.from.number, toBlock }
  const facts = new Map(
    tokens.map((token) => {
      const f = inputs.tokens.get(token)!
      const deployer = f.deployer && (f.createdBlock ?? 0) <= toBlock ? f.deployer : null
      const firstSwap = f.firstSwapBlock !== null && f.firstSwapBlock <= toBlock ? f.firstSwapBlock : toBlock + 1
      return [token, { ...f, deployer, firstSwap, poolSet: new Set(f.pools) }]
    }),
  )
  const [windows, preSwaps] = await Promise.all([
    holderWindows(ch, chainId, new Map(tokens.map((t) => [t, facts.get(t)!.pools])), range, { top: STRUCTURE_TOP_HOLDERS, diffLimit: STRUCTURE_DIFF_LIMIT }),
    // Insiders and round allocations: each token's off-market transfers before its first swap.
    reads.transfersBefore(ch, chainId, new Map(tokens.map((t) => [t, facts.get(t)!.firstSwap]))),
  ])

  // The verdict's inputs: the large holders (largest at the baseline, and insiders) and the
  // largest now, at both ends; and every listed wallet, labelled.
  const parts = new Map(
    tokens.map((token) => {
      const f = facts.get(token)!
      const w = windows.get(token)!
      const preSwap = preSwaps.get(token) ?? []
      const insiders = insidersOf(f.deployer, f.poolSet, preSwap)
      const rounds = roundAllocationsOf(f.deployer, f.poolSet, preSwap, w.supply, f.decimals)
      const large = [...new Set([...w.topThen.slice(0, STRUCTURE_LARGE_HOLDERS).map((h) => h.wallet), ...insiders.keys()])].filter((x) => !f.poolSet.has(x))
      const topNow = w.top.slice(0, STRUCTURE_LARGE_HOLDERS).map((h) => h.wallet)
      const listed = [...new Set([...w.top.map((h) => h.wallet), ...w.wallets.map((x) => x.wallet)])]
      return [token, { insiders, rounds, large, topNow, judged: [...new Set([...large, ...topNow])], listed }]
    }),
  )
  const allListed = [...new Set(tokens.flatMap((t) => parts.get(t)!.listed))]
  const [judgedBalances, entities, handles, smart] = await Promise.all([
    balancesBetweenOf(ch, chainId, new Map(tokens.map((t) => [t, parts.get(t)!.judged])), range),
    entityLabelsOf(ch, chainId, new Map(tokens.map((t) => [t, { wallets: parts.get(t)!.listed, pools: facts.get(t)!.pools, deployer: facts.get(t)!.deployer }])), toBlock),
    identityHandles(ch, chainId, allListed),
    smartHolderRecords(ch, chainId, allListed),
  ])
  const out = new Map<string, StructureComputation>()
  for (const token of tokens) {
    const w = windows.get(token)!
    const answer = answerOf(token, window, facts.get(token)!, w, {
      ...parts.get(token)!,
      judgedBalances: judgedBalances.get(token)!,
      entities: entities.get(token)!,
      handles,
      smart,
    })
    out.set(token, { answer, firstChange: w.firstChange })
  }
  return out
}

/** One token's answer from its reads. */
function answerOf(
  token: string,
  window: { from: BlockRef; to: BlockRef; full: boolean },
  f: StructureInputs & { poolSet: Set<string> },
  w: HolderWindow,
  labels: {
    insiders: ReturnType<typeof insidersOf>
    rounds: ReturnType<typeof roundAllocationsOf>
    large: string[]
    topNow: string[]
    judgedBalances: Map<string, { then: bigint; now: bigint }>
    entities: Map<string, { entityId: string; wallets: number }>
    handles: Map<string, string>
    smart: Map<string, SmartRecord>
  },
): StructureAnswer {
  const { deployer } = f
  const both = (x: string) => labels.judgedBalances.get(x) ?? { then: 0n, now: 0n }
  const judgement = structureVerdict({
    holders: w.holders,
    fullWindow: window.full,
    supply: w.supply,
    large: labels.large.map(both),
    topNow: labels.topNow.map(both),
    grew: w.grew,
    pools: { then: w.poolsThen, now: w.pools.reduce((a, p) => a + p.balance, 0n) },
    exited: w.exited,
    newHolders: w.newHolders,
  })

  const labelsOf = (x: string): HolderLabel[] => {
    const out: HolderLabel[] = []
    if (x === deployer) out.push({ kind: 'deployer' })
    const ins = labels.insiders.get(x)
    if (ins) out.push({ kind: 'insider', from: ins.from, received_wei: ins.received.toString(), block: ins.block })
    const ent = labels.entities.get(x)
    if (ent) out.push({ kind: 'entity', entity_id: ent.entityId, wallets: ent.wallets })
    const r = labels.rounds.get(x)
    if (r) out.push({ kind: 'round_allocation', received_wei: r.received.toString(), share: r.share })
    const h = labels.handles.get(x)
    if (h) out.push({ kind: 'identity', handle: h })
    const s = labels.smart.get(x)
    if (s) out.push({ kind: 'smart', basis: s.basis })
    return out
  }

  const found = deployer !== null || w.total > 0 || f.pools.length > 0
  return {
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
}
