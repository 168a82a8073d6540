import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { VerdictSignals } from './verdict.ts'
import type { TokenRecord } from '../token/token-state.ts'

const ZERO = '0x0000000000000000000000000000000000000000'
const RANK = { A: 0, B: 1, C: 2, D: 3 } as const
type Grade = keyof typeof RANK

/**
 * The holder-structure verdict and the smart-holder count, as the token's latest structure scan
 * measured them (structure_snapshots, migration 020: one keyed read of the newest row). A token
 * never scanned (no POST /structure, not on a watchlist) answers null: not measured. The verdict
 * reads the archive rather than computing a structure answer per token, which would cost a
 * holder-window read for every verdict.
 */
export async function latestStructureScans(ch: ClickHouseClient, chainId: number, tokens: string[]): Promise<Map<string, { verdict: string; smart: number }>> {
  const rows = await queryRows<{ token: string; verdict: string; smart: string }>(
    ch,
    `SELECT token, argMax(verdict, to_block) AS verdict,
            argMax(arrayCount(h -> arrayExists(l -> JSONExtractString(l, 'kind') = 'smart', JSONExtractArrayRaw(h.labels)), top_holders), to_block) AS smart
     FROM structure_snapshots WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token`,
    { chain: chainId, tokens },
  )
  return new Map(rows.map((r) => [r.token, { verdict: r.verdict, smart: Number(r.smart) }]))
}

const share = (part: bigint, whole: bigint) => (whole > 0n ? Number((part * 10_000n) / whole) / 10_000 : 0)

/** The signals read from chain rows: they change only when a batch touches the token (its transfers, its pool's liquidity). */
export type ChainSignals = Pick<VerdictSignals, 'lp' | 'insiderShareNow'>
/** The signals of the token's latest structure scan: they change when a scan is stored (or a reorg removes it). */
export type ScanSignals = Pick<VerdictSignals, 'structure' | 'smartHolders'>
/** What the verdict needs of a caller: whether it is measured, and its grade. */
export type CallerStanding = { measured: boolean; grade: string | null }

/**
 * The chain signals of a set of tokens, all by key (one query per kind, whatever the number of tokens):
 *  - insiders: the wallets each deployer sent supply to before the token's first swap
 *    (transfers_by_token, by token, only the blocks before it), the launch pool and the zero
 *    address excluded; their balance now from holder_balances (by token and wallet), not from
 *    the token's whole transfer history;
 *  - who can pull the liquidity: the launch pool's providers and their net liquidity
 *    (pool_providers, by pool), the deployer's and the insiders' shares of it.
 */
export async function chainSignalsOf(ch: ClickHouseClient, chainId: number, ts: TokenRecord[]): Promise<Map<string, ChainSignals>> {
  const out = new Map<string, ChainSignals>()
  if (ts.length === 0) return out
  const withDeployer = ts.filter((t) => t.deployer)
  const pools = ts.map((t) => t.launch?.pool ?? '').filter(Boolean)
  const [insiderRows, lpRows] = await Promise.all([
    withDeployer.length
      ? queryRows<{ token: string; insiders: string[]; held: string }>(
          ch,
          `WITH keys AS (
             SELECT x.1 AS token, x.2 AS deployer, x.3 AS pool, x.4 AS before
             FROM (SELECT arrayJoin(arrayZip({tokens:Array(String)}, {deployers:Array(String)}, {pools:Array(String)}, {befores:Array(UInt64)})) AS x)),
           ins AS (
             SELECT DISTINCT t.token AS token, t.to_address AS w FROM transfers_by_token AS t INNER JOIN keys AS k ON k.token = t.token
             WHERE t.chain_id = {chain:UInt32} AND t.token IN {tokens:Array(String)} AND t.from_address = k.deployer
               AND t.to_address NOT IN (k.deployer, {zero:String}, k.pool) AND t.block_number < k.before)
           SELECT i.token AS token, groupArray(i.w) AS insiders, toString(sum(b.balance)) AS held
           FROM ins AS i LEFT JOIN (
             SELECT token, wallet, sum(balance) AS balance FROM holder_balances
             WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} AND (token, wallet) IN (SELECT token, w FROM ins)
             GROUP BY token, wallet) AS b ON b.token = i.token AND b.wallet = i.w
           GROUP BY i.token`,
          {
            chain: chainId, zero: ZERO,
            tokens: withDeployer.map((t) => t.token), deployers: withDeployer.map((t) => t.deployer!), pools: withDeployer.map((t) => t.launch?.pool ?? ''),
            befores: withDeployer.map((t) => t.firstSwapBlock ?? Number.MAX_SAFE_INTEGER),
          },
        )
      : Promise.resolve([]),
    pools.length
      ? queryRows<{ pool: string; provider: string; net: string }>(
          ch,
          `SELECT pool, provider, toString(toInt256(sum(added)) - toInt256(sum(removed))) AS net FROM pool_providers
           WHERE chain_id = {chain:UInt32} AND pool IN {pools:Array(String)} GROUP BY pool, provider`,
          { chain: chainId, pools },
        )
      : Promise.resolve([]),
  ])
  // By key, so a refresh of many tokens at once stays linear in its rows.
  const insidersByToken = new Map(insiderRows.map((r) => [r.token, r]))
  const providersByPool = new Map<string, typeof lpRows>()
  for (const r of lpRows) {
    const list = providersByPool.get(r.pool)
    if (list) list.push(r)
    else providersByPool.set(r.pool, [r])
  }
  for (const t of ts) {
    const ins = insidersByToken.get(t.token)
    const insiders = new Set(ins?.insiders ?? [])
    const held = BigInt(ins?.held ?? '0')
    let total = 0n
    let byDeployer = 0n
    let byInsiders = 0n
    let providers = 0
    for (const r of t.launch ? (providersByPool.get(t.launch.pool) ?? []) : []) {
      const net = BigInt(r.net)
      if (net <= 0n) continue
      providers++
      total += net
      if (r.provider === t.deployer) byDeployer += net
      else if (insiders.has(r.provider)) byInsiders += net
    }
    out.set(t.token, {
      lp: t.launch ? { providers, deployerShare: share(byDeployer, total), insiderShare: share(byInsiders, total) } : null,
      insiderShareNow: t.deployer && t.supplyWei > 0n ? share(held > 0n ? held : 0n, t.supplyWei) : null,
    })
  }
  return out
}

/** The scan signals of a set of tokens (null where a token was never scanned). */
export async function scanSignalsOf(ch: ClickHouseClient, chainId: number, tokens: string[]): Promise<Map<string, ScanSignals>> {
  const scans = tokens.length ? await latestStructureScans(ch, chainId, tokens) : new Map<string, { verdict: string; smart: number }>()
  return new Map(tokens.map((t) => [t, { structure: (scans.get(t)?.verdict ?? null) as VerdictSignals['structure'], smartHolders: scans.get(t)?.smart ?? null }]))
}

/** The accounts that mentioned each token (mentions, by its token key). */
export async function mentionAuthorsOf(ch: ClickHouseClient, tokens: string[]): Promise<Map<string, string[]>> {
  const rows = tokens.length
    ? await queryRows<{ token: string; authors: string[] }>(ch, 'SELECT token, groupUniqArray(author) AS authors FROM mentions WHERE token IN {tokens:Array(String)} GROUP BY token', { tokens })
    : []
  const found = new Map(rows.map((r) => [r.token, r.authors]))
  return new Map(tokens.map((t) => [t, found.get(t) ?? []]))
}

/** Each author's standing from caller_state (by its author key, the newest version). */
async function callerStandings(ch: ClickHouseClient, authors: string[]): Promise<Map<string, CallerStanding>> {
  if (authors.length === 0) return new Map()
  const rows = await queryRows<{ author: string; grade: string; measured: number }>(
    ch,
    'SELECT author, argMax(grade, version) AS grade, argMax(measured, version) AS measured FROM caller_state WHERE author IN {authors:Array(String)} GROUP BY author',
    { authors },
  )
  return new Map(rows.map((r) => [r.author, { measured: Number(r.measured) === 1, grade: r.grade || null }]))
}

/** Measured callers among the accounts that mentioned a token, and their best grade. */
export function measuredCallersOf(authors: string[], standing: (author: string) => CallerStanding | undefined): VerdictSignals['measuredCallers'] {
  const measured = authors.map(standing).filter((s): s is CallerStanding => s?.measured === true)
  const grades = measured.map((s) => s.grade).filter((g): g is Grade => g !== null && g in RANK)
  return { count: measured.length, bestGrade: grades.length ? grades.reduce((a, b) => (RANK[b] < RANK[a] ? b : a)) : null }
}

/**
 * The verdict's signals beyond the token and deployer records, for a set of tokens, all by key:
 * the chain signals, the latest scan, and the measured callers among the accounts that
 * mentioned each token (caller_state by author). The API keeps the same parts per key
 * (products/verdict/verdict-signals-serving.ts); this reads them at once, for the pipeline.
 */
export async function verdictSignalsOf(ch: ClickHouseClient, chainId: number, ts: TokenRecord[]): Promise<Map<string, VerdictSignals>> {
  const out = new Map<string, VerdictSignals>()
  if (ts.length === 0) return out
  const tokens = ts.map((t) => t.token)
  const [chain, scans, authors] = await Promise.all([chainSignalsOf(ch, chainId, ts), scanSignalsOf(ch, chainId, tokens), mentionAuthorsOf(ch, tokens)])
  const standings = await callerStandings(ch, [...new Set([...authors.values()].flat())])
  for (const t of ts) {
    out.set(t.token, { ...chain.get(t.token)!, measuredCallers: measuredCallersOf(authors.get(t.token) ?? [], (a) => standings.get(a)), ...scans.get(t.token)! })
  }
  return out
}

/** One token's signals. */
export async function verdictSignals(ch: ClickHouseClient, chainId: number, t: TokenRecord): Promise<VerdictSignals> {
  return (await verdictSignalsOf(ch, chainId, [t])).get(t.token)!
}
