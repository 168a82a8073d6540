import type { ClickHouseClient } from '../clickhouse.ts'
import { queryRows } from '../clickhouse.ts'

/**
 * Where the data stands, read and named in one place: the chain's newest ingested block and its
 * time, and the cache versions answers are keyed by (a chain's served batch, the social rows).
 * The served batch itself is read in `serving-changes.ts`; the API holds the current values in
 * `core/serving/watermarks.ts`.
 */

/** The newest ingested block of a chain: chain_blocks by key, read backwards from the end. */
export async function chainHead(ch: ClickHouseClient, chainId: number): Promise<{ number: number; time: number } | null> {
  const [r] = await queryRows<{ number: string; t: string }>(
    ch,
    'SELECT number, toUnixTimestamp(timestamp) AS t FROM chain_blocks WHERE chain_id = {chain:UInt32} ORDER BY number DESC LIMIT 1',
    { chain: chainId },
  )
  return r ? { number: Number(r.number), time: Number(r.t) } : null
}

/**
 * The chains with ingested blocks, in order: chain_blocks' leading key walked one chain at a time
 * (each read the first row past the previous chain, by key), so the work is the number of chains,
 * never the number of blocks (a DISTINCT over the table reads every row's chain_id).
 */
export async function chainsIngested(ch: ClickHouseClient): Promise<number[]> {
  const chains: number[] = []
  for (let after = -1; ; ) {
    const [r] = await queryRows<{ c: number }>(
      ch,
      'SELECT chain_id AS c FROM chain_blocks WHERE chain_id > {after:Int64} ORDER BY chain_id LIMIT 1',
      { after },
    )
    if (!r) return chains
    after = Number(r.c)
    chains.push(after)
  }
}

/** Rows the social pipeline has ingested: grows on every social batch, so it versions social answers. */
export async function socialRowCount(ch: ClickHouseClient): Promise<number> {
  // Row counts are metadata reads in ClickHouse: cheap enough to poll.
  const [r] = await queryRows<{ n: string }>(
    ch,
    'SELECT (SELECT count() FROM mentions) + (SELECT count() FROM follow_events) + (SELECT count() FROM tg_sightings) + (SELECT count() FROM caller_mirrors) AS n',
  )
  return Number(r!.n)
}

/** Cache version of answers that depend on a chain: the seq of its last served batch. */
export function chainVersion(seq: number | undefined): string {
  return String(seq ?? 'none')
}

/** Cache version of answers that read the social data together with a chain's. */
export function chainSocialVersion(seq: number | undefined, socialRows: number): string {
  return `${chainVersion(seq)}/${socialRows}`
}

/** The database clock (unix ms): the clock the `*_noted` views stamp rows with. */
export async function databaseNow(ch: ClickHouseClient): Promise<number> {
  const [r] = await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp64Milli(now64(3)) AS t')
  return Number(r!.t)
}
