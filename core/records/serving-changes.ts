import type { ClickHouseClient } from '../clickhouse.ts'
import { queryRows } from '../clickhouse.ts'

/**
 * `serving_changes`: what each serving refresh changed, in seq order. The pipeline writes one
 * insert per refreshed batch (the changed keys and a 'batch' marker); API processes read the rows
 * after the last seq they saw and drop exactly those keys from their caches.
 */
export interface ServedBatch {
  watermark: number
  /** Unix seconds of the watermark block. */
  chainTime: number
  seq: number
}

/** The last refreshed batch of a chain, read from the end of the (chain_id, seq) key. */
export async function lastServedBatch(ch: ClickHouseClient, chainId: number): Promise<ServedBatch | null> {
  const [r] = await queryRows<{ watermark: string; chain_time: number; seq: string }>(
    ch,
    `SELECT watermark, chain_time, seq FROM serving_changes WHERE chain_id = {chain:UInt32} AND kind = 'batch' ORDER BY seq DESC LIMIT 1`,
    { chain: chainId },
  )
  return r ? { watermark: Number(r.watermark), chainTime: Number(r.chain_time), seq: Number(r.seq) } : null
}

export interface ServingChange {
  seq: number
  /**
   * `scan`: a structure scan of the token `key` was stored (written by the scans role). (Rows of
   * kind `window`, a transfer of the token leaving the 24 h holder window, were written before
   * kept /structure answers told it themselves; nothing reads them.)
   */
  kind: 'token' | 'deployer' | 'wallet' | 'batch' | 'scan'
  key: string
  watermark: number
  chainTime: number
}

/**
 * Changes with seq in (after, through], in order, at most `limit` (a range read on the key); with
 * `late`, also every row of that kind with seq above `from`: rows a second writer committed late,
 * and rows written since the last batch (a scan is named as soon as it is stored).
 */
export async function servingChangesBetween(
  ch: ClickHouseClient,
  chainId: number,
  after: number,
  through: number,
  limit: number,
  late?: { lateKind: ServingChange['kind']; from: number },
): Promise<ServingChange[]> {
  const rows = await queryRows<{ seq: string; kind: ServingChange['kind']; key: string; watermark: string; chain_time: number }>(
    ch,
    `SELECT seq, kind, key, watermark, chain_time FROM serving_changes
     WHERE chain_id = {chain:UInt32} AND seq > {from:UInt64} AND ((seq > {after:UInt64} AND seq <= {through:UInt64}) OR kind = {lateKind:String})
     ORDER BY seq LIMIT {limit:UInt32}`,
    { chain: chainId, after, through, limit, from: late ? Math.min(late.from, after) : after, lateKind: late?.lateKind ?? '' },
  )
  return rows.map((r) => ({ seq: Number(r.seq), kind: r.kind, key: r.key, watermark: Number(r.watermark), chainTime: Number(r.chain_time) }))
}

/** The batch markers with seq in (after, through], in order (a range read on the key: what a sync that skipped changes still looks at). */
export async function batchMarkersBetween(ch: ClickHouseClient, chainId: number, after: number, through: number): Promise<ServingChange[]> {
  const rows = await queryRows<{ seq: string; key: string; watermark: string; chain_time: number }>(
    ch,
    `SELECT seq, key, watermark, chain_time FROM serving_changes
     WHERE chain_id = {chain:UInt32} AND seq > {after:UInt64} AND seq <= {through:UInt64} AND kind = 'batch' ORDER BY seq`,
    { chain: chainId, after, through },
  )
  return rows.map((r) => ({ seq: Number(r.seq), kind: 'batch', key: r.key, watermark: Number(r.watermark), chainTime: Number(r.chain_time) }))
}

/**
 * A served batch as the process that served it hands it to the processes that follow it on one
 * host (with the advance): what its serving_changes rows name, and what a long poll at the feed's
 * head reads next, read back once they were written (the batch's launch_feed rows, its launched
 * tokens' token_state rows and its deployers' deployer_state rows). A follower that has applied every change up to `after` applies it
 * instead of reading those rows; any other follower reads them (serving_changes, by seq).
 */
export interface PushedBatch {
  /** The seq of the change its writer named before it: the push is complete on top of that one. */
  after: number
  seq: number
  watermark: number
  chainTime: number
  /** Keys it named (kinds token, deployer, wallet) and the launches its marker counts. */
  tokens: string[]
  deployers: string[]
  wallets: string[]
  launches: number
  /** Its launch_feed rows in cursor order: visible_at in microseconds, token, block. */
  feed: Array<{ us: number; key: string; block: number }>
  /** The token_state rows of the tokens it launched, as a keyed read of token_state returns them. */
  launchedRows: Array<Record<string, unknown> & { token: string }>
  /** The deployer_state rows of the deployers it named, read the same way (with launches only, else none). */
  deployerRows: Array<Record<string, unknown> & { deployer: string }>
  /**
   * What other writers named in serving_changes between `after` and the batch (a repair's keys,
   * a marker of rows changed under the service), and the scans named since LATE_CHANGES_WINDOW_US
   * before `after` (the scans role commits them late): read by its writer beside the batch's
   * serving_changes insert, so a follower applies them with it and reads nothing.
   */
  others: ServingChange[]
}

/** The serving_changes rows a push stands for (what a follower reading them would have read). */
export function changesOfPush(p: PushedBatch): ServingChange[] {
  const at = { seq: p.seq, watermark: p.watermark, chainTime: p.chainTime }
  return [
    ...p.tokens.map((key) => ({ ...at, kind: 'token' as const, key })),
    ...p.deployers.map((key) => ({ ...at, kind: 'deployer' as const, key })),
    ...p.wallets.map((key) => ({ ...at, kind: 'wallet' as const, key })),
    { ...at, kind: 'batch' as const, key: launchesMark(p.launches) },
  ]
}

/** The key of a batch's marker: the launches it served (`launches=N`). */
export const launchesMark = (launches: number) => `launches=${launches}`

/**
 * Whether the batch markers among `changes` may have served launches: any marker but one that
 * says none (a rollback's or a rebuild's marker, and one written before markers said, count).
 */
export function mayHaveLaunched(changes: readonly ServingChange[]): boolean {
  return changes.some((c) => c.kind === 'batch' && c.key !== launchesMark(0))
}

/**
 * Whether served batches roll back: a batch marker at a block below the one before it (a reorg's
 * rollback writes its marker at the block it rolled back to). `before`: the block served before
 * the first of them (null: none). Every marker counts, not only the last: new batches may follow
 * a rollback.
 */
export function rollsBack(changes: readonly ServingChange[], before: number | null): boolean {
  let last = before
  for (const c of changes) {
    if (c.kind !== 'batch') continue
    if (last !== null && c.watermark < last) return true
    last = c.watermark
  }
  return false
}

/**
 * Name a stored structure scan of `token`, so API processes drop what they keep of its latest scan
 * (the verdict's structure signals). Picked up with the next served batch.
 */
export async function noteScanned(ch: ClickHouseClient, chainId: number, token: string, at: { block: number; chainTime: number }): Promise<void> {
  await ch.insert({
    table: 'serving_changes',
    values: [{ chain_id: chainId, seq: nextServingSeq(), kind: 'scan', key: token, watermark: at.block, chain_time: at.chainTime }],
    format: 'JSONEachRow',
  })
}

let lastSeq = 0

/**
 * Strictly increasing microseconds: the version of refreshed serving rows and the seq of their
 * change rows (one writer per chain and per social pipeline, so one process's clock orders them).
 */
export function nextServingSeq(): number {
  lastSeq = Math.max(lastSeq + 1, Date.now() * 1000)
  return lastSeq
}
