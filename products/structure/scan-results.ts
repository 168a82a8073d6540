import { noteScanned } from '../../core/records/serving-changes.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { HolderLabel } from './holder-labels.ts'
import type { ScanTrigger } from './scan-job.ts'

/**
 * What scans leave behind (migration 020): cached forensics results by token, and the
 * holder-snapshot archive (`structure_snapshots` by token, `snapshot_holdings` by wallet).
 * Every read is by key.
 */

// ---------------------------------------------------------------- forensics

export async function writeForensicsResult(ch: ClickHouseClient, chainId: number, r: { token: string; measuredThroughBlock: number; jobId: string; result: unknown }): Promise<void> {
  await ch.insert({
    table: 'forensics_results',
    format: 'JSONEachRow',
    values: [{ chain_id: chainId, token: r.token, measured_through_block: r.measuredThroughBlock, job_id: r.jobId, computed_at: Date.now(), result: JSON.stringify(r.result) }],
  })
}

/** The newest forensics result of a token, or null. */
export async function latestForensicsResult<T>(ch: ClickHouseClient, chainId: number, token: string): Promise<{ measuredThroughBlock: number; computedAt: string; result: T } | null> {
  const [r] = await queryRows<{ measured_through_block: string; ms: string; result: string }>(
    ch,
    `SELECT measured_through_block, toUnixTimestamp64Milli(computed_at) AS ms, result FROM forensics_results
     WHERE chain_id = {chain:UInt32} AND token = {token:String} ORDER BY measured_through_block DESC, computed_at DESC LIMIT 1`,
    { chain: chainId, token },
  )
  return r ? { measuredThroughBlock: Number(r.measured_through_block), computedAt: new Date(Number(r.ms)).toISOString(), result: JSON.parse(r.result) as T } : null
}

// ---------------------------------------------------------------- structure snapshots

export interface SnapshotHolder {
  address: string
  balanceWei: bigint
  /** Share of supply, a decimal fraction (9 digits), as /structure/{token} states it. */
  share: string
  labels: HolderLabel[]
}

export interface DiffSummary {
  frozen: number
  added: number
  trimmed: number
  exited: number
}

export interface StructureSnapshot {
  token: string
  toBlock: number
  /** Unix seconds (chain clock). */
  toTime: number
  fromBlock: number
  fromTime: number
  trigger: ScanTrigger
  jobId: string
  takenAt: string
  holderCount: number
  top: SnapshotHolder[]
  summary: DiffSummary
  verdict: string
}

/** A wallet as one snapshot names it (a top holder or a wallet of the diff). */
export interface SnapshotHolding {
  wallet: string
  balanceWei: bigint
  labels: HolderLabel[]
}

/**
 * Archive a snapshot: its row by token, and one row per wallet it names by wallet. Written in
 * that order by the scan that took it; a re-run of the same scan writes the same rows (the
 * tables replace on their keys).
 */
export async function writeStructureSnapshot(ch: ClickHouseClient, chainId: number, s: StructureSnapshot, holdings: SnapshotHolding[]): Promise<void> {
  if (holdings.length) {
    await ch.insert({
      table: 'snapshot_holdings',
      format: 'JSONEachRow',
      values: holdings.map((h) => ({ chain_id: chainId, wallet: h.wallet, token: s.token, to_block: s.toBlock, balance: h.balanceWei.toString(), labels: JSON.stringify(h.labels) })),
    })
  }
  await ch.insert({
    table: 'structure_snapshots',
    format: 'JSONEachRow',
    values: [{
      chain_id: chainId, token: s.token, to_block: s.toBlock, to_time: s.toTime, from_block: s.fromBlock, from_time: s.fromTime, trigger: s.trigger, job_id: s.jobId,
      taken_at: Date.parse(s.takenAt), holder_count: s.holderCount,
      top_holders: s.top.map((h) => ({ address: h.address, balance: h.balanceWei.toString(), share: h.share, labels: JSON.stringify(h.labels) })),
      frozen: s.summary.frozen, added: s.summary.added, trimmed: s.summary.trimmed, exited: s.summary.exited, verdict: s.verdict,
    }],
  })
  await noteScanned(ch, chainId, s.token, { block: s.toBlock, chainTime: s.toTime })
}

interface SnapshotRow {
  token: string
  to_block: string
  to_time: number
  from_block: string
  from_time: number
  trigger: ScanTrigger
  job_id: string
  taken_ms: string
  holder_count: string
  top: Array<[string, string, string, string]>
  frozen: string
  added: string
  trimmed: string
  exited: string
  verdict: string
}

const SNAPSHOT_COLUMNS = `token, to_block, toUnixTimestamp(to_time) AS to_time, from_block, toUnixTimestamp(from_time) AS from_time, trigger, job_id,
  toUnixTimestamp64Milli(taken_at) AS taken_ms, holder_count, arrayMap(h -> (h.1, toString(h.2), h.3, h.4), top_holders) AS top,
  frozen, added, trimmed, exited, verdict`

function fromRow(r: SnapshotRow): StructureSnapshot {
  return {
    token: r.token, toBlock: Number(r.to_block), toTime: Number(r.to_time), fromBlock: Number(r.from_block), fromTime: Number(r.from_time),
    trigger: r.trigger, jobId: r.job_id, takenAt: new Date(Number(r.taken_ms)).toISOString(), holderCount: Number(r.holder_count),
    top: r.top.map(([address, balance, share, labels]) => ({ address, balanceWei: BigInt(balance), share, labels: JSON.parse(labels) as HolderLabel[] })),
    summary: { frozen: Number(r.frozen), added: Number(r.added), trimmed: Number(r.trimmed), exited: Number(r.exited) },
    verdict: r.verdict,
  }
}

/** A token's snapshots, newest first, taken before `beforeBlock` when given; at most `limit`. */
export async function structureSnapshots(ch: ClickHouseClient, chainId: number, token: string, opts: { limit: number; beforeBlock?: number; trigger?: ScanTrigger }): Promise<StructureSnapshot[]> {
  const rows = await queryRows<SnapshotRow>(
    ch,
    `SELECT ${SNAPSHOT_COLUMNS} FROM structure_snapshots FINAL
     WHERE chain_id = {chain:UInt32} AND token = {token:String} AND to_block < {before:UInt64} ${opts.trigger ? 'AND trigger = {trigger:String}' : ''}
     ORDER BY to_block DESC LIMIT {limit:UInt32}`,
    { chain: chainId, token, before: opts.beforeBlock ?? Number.MAX_SAFE_INTEGER, trigger: opts.trigger ?? '', limit: opts.limit },
  )
  return rows.map(fromRow)
}

/** The newest daily snapshot time (chain clock, unix seconds) of each token, for the daily scheduler. */
export async function lastDailySnapshotTimes(ch: ClickHouseClient, chainId: number, tokens: string[]): Promise<Map<string, number>> {
  if (!tokens.length) return new Map()
  const rows = await queryRows<{ token: string; t: number }>(
    ch,
    `SELECT token, toUnixTimestamp(max(to_time)) AS t FROM structure_snapshots
     WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} AND trigger = 'daily' GROUP BY token`,
    { chain: chainId, tokens },
  )
  return new Map(rows.map((r) => [r.token, Number(r.t)]))
}

export interface Appearance {
  wallet: string
  token: string
  toBlock: number
  balanceWei: bigint
  labels: HolderLabel[]
}

/** Every snapshot appearance of these wallets, by wallet key; per (wallet, token) newest first, at most `perToken`. */
export async function snapshotAppearances(ch: ClickHouseClient, chainId: number, wallets: string[], perToken: number): Promise<Appearance[]> {
  if (!wallets.length) return []
  const rows = await queryRows<{ wallet: string; token: string; to_block: string; balance: string; labels: string }>(
    ch,
    `SELECT wallet, token, to_block, toString(balance) AS balance, labels FROM snapshot_holdings FINAL
     WHERE chain_id = {chain:UInt32} AND wallet IN {wallets:Array(String)}
     ORDER BY wallet, token, to_block DESC LIMIT {per:UInt32} BY wallet, token`,
    { chain: chainId, wallets, per: perToken },
  )
  return rows.map((r) => ({ wallet: r.wallet, token: r.token, toBlock: Number(r.to_block), balanceWei: BigInt(r.balance), labels: JSON.parse(r.labels) as HolderLabel[] }))
}
