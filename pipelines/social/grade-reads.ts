import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows, tupleParam } from '../../core/clickhouse.ts'
import { CALL_WINDOW_SECONDS, type WindowPrice } from '../../products/social/caller-grade.ts'
import type { Reorg } from './grade-reorgs.ts'

/**
 * The grader's reads. Each names the access path it uses: every one reads by the ordering key
 * of a table kept for it (migration 012), so a pass costs what changed, not what exists.
 */

export type CallKey = readonly [author: string, token: string]

/** A call as `calls` holds it now (its earliest mention). */
export interface CallFacts {
  author: string
  token: string
  calledAt: number
  capturedAt: number
  postId: string
}

/** Where a pass starts: what `passFacts` reads in one statement. */
export interface PassFacts {
  /** The chain's newest block (null before the first). */
  head: { number: number; time: number } | null
  /** The database clock as the statement ran (unix ms). */
  now: number
  reorgs: Reorg[]
  /** Calls whose window closed in (gradedThrough, max(head, gradedThrough)] of chain time, oldest first. */
  closing: CallKey[]
  /**
   * Calls stored after `callsNotedMs` (database clock) whose hour had closed by the window's end:
   * a stored mention whose own hour is still open cannot move a closed call (the call's first
   * mention is at or before it), and its call is found when its hour closes.
   */
  noted: CallKey[]
  /** Tokens noted real after `realNotedMs`. */
  realTokens: string[]
  /**
   * The chain time at which the next stored call's window closes (Infinity: none is open): until
   * the chain reaches it, a pass has no closing call to grade (products/social/caller-grade.ts).
   */
  nextDue: number
}

/**
 * A checkpointed pass's inputs in one statement, one branch per read (each by its table's key,
 * as the reads below; calls_noted and token_real_noted by their time keys): the head and the database clock, the reorgs, the calls whose window
 * closed, the calls noted and the tokens noted real since the checkpoint, and when the next open
 * call's window closes (calls_by_time by its key, from the window's end back an hour). An idle pass is mostly
 * this read; a statement each cost the engine about as much again in planning and round trips.
 */
export async function passFacts(
  ch: ClickHouseClient,
  chainId: number,
  since: { gradedThrough: number; callsNotedMs: number; realNotedMs: number; reorgsMs: number },
): Promise<PassFacts> {
  // The window's end: the chain time of the head, or the checkpoint's when the chain went back.
  const through = `greatest((SELECT toUnixTimestamp(timestamp) FROM chain_blocks WHERE chain_id = {chain:UInt32} ORDER BY number DESC LIMIT 1), {gt:UInt32})`
  const rows = await queryRows<{ kind: string; a: string; b: string; c: string }>(
    ch,
    `SELECT 'head' AS kind, toString(number) AS a, toString(toUnixTimestamp(timestamp)) AS b, toString(toUnixTimestamp64Milli(now64(3))) AS c
     FROM (SELECT number, timestamp FROM chain_blocks WHERE chain_id = {chain:UInt32} ORDER BY number DESC LIMIT 1)
     UNION ALL
     SELECT 'reorg', toString(from_block), old_hash, toString(toUnixTimestamp64Milli(detected_at)) FROM chain_reorgs
     WHERE chain_id = {chain:UInt32} AND detected_at > fromUnixTimestamp64Milli({reorgs:Int64})
     UNION ALL
     SELECT 'closing', author, token, toString(toUnixTimestamp(first_called_at)) FROM (${closingCalls(`${through} - ${CALL_WINDOW_SECONDS}`)})
     UNION ALL
     SELECT DISTINCT 'noted', author, token, '' FROM calls_noted
     WHERE noted_at > fromUnixTimestamp64Milli({calls:Int64}) AND toUnixTimestamp(called_at) + ${CALL_WINDOW_SECONDS} <= ${through}
     UNION ALL
     SELECT DISTINCT 'real', token, '', '' FROM token_real_noted WHERE chain_id = {chain:UInt32} AND noted_at > fromUnixTimestamp64Milli({real:Int64})
     UNION ALL
     SELECT 'due', toString(toUnixTimestamp(min(called_at)) + ${CALL_WINDOW_SECONDS}), '', '' FROM calls_by_time
     WHERE called_at > toDateTime(${through} - ${CALL_WINDOW_SECONDS}) HAVING count() > 0`,
    {
      chain: chainId, gt: since.gradedThrough, lo: closingFrom(since.gradedThrough),
      reorgs: since.reorgsMs, calls: since.callsNotedMs, real: since.realNotedMs,
    },
  )
  const facts: PassFacts = { head: null, now: 0, reorgs: [], closing: [], noted: [], realTokens: [], nextDue: Number.POSITIVE_INFINITY }
  const closing: Array<{ key: CallKey; at: number }> = []
  for (const r of rows) {
    if (r.kind === 'head') {
      facts.head = { number: Number(r.a), time: Number(r.b) }
      facts.now = Number(r.c)
    } else if (r.kind === 'reorg') facts.reorgs.push({ fromBlock: Number(r.a), oldHash: r.b, detectedAt: Number(r.c) })
    else if (r.kind === 'closing') closing.push({ key: [r.a, r.b], at: Number(r.c) })
    else if (r.kind === 'noted') facts.noted.push([r.a, r.b])
    else if (r.kind === 'due') facts.nextDue = Number(r.a)
    else facts.realTokens.push(r.a)
  }
  // As callsClosingIn orders them: oldest first, the grader prices calls in time order.
  closing.sort((x, y) => x.at - y.at || cmp(x.key[0], y.key[0]) || cmp(x.key[1], y.key[1]))
  facts.closing = closing.map((c) => c.key)
  facts.reorgs.sort((x, y) => x.detectedAt - y.detectedAt)
  return facts
}

const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)

/** The first call time whose window closing after chain time `from` is graded: the `lo` of closingCalls. */
const closingFrom = (from: number) => Math.max(0, from - CALL_WINDOW_SECONDS + 1)

/**
 * Each (author, token) called from `{lo:UInt32}` through `hiSql` (a chain time, SQL), with its first
 * call time: calls_by_time by its key range. The calls whose window closes after `lo`'s and by
 * `hiSql` + the window.
 */
function closingCalls(hiSql: string): string {
  return `SELECT author, token, min(called_at) AS first_called_at FROM calls_by_time
          WHERE called_at >= toDateTime({lo:UInt32}) AND called_at <= toDateTime(${hiSql}) GROUP BY author, token`
}

/** Calls whose window closed in (from, to] of chain time: calls_by_time by its key range. */
export async function callsClosingIn(ch: ClickHouseClient, from: number, to: number): Promise<CallKey[]> {
  const lo = closingFrom(from)
  const hi = to - CALL_WINDOW_SECONDS
  if (hi < lo) return []
  // Oldest first: the grader prices calls in time order, each batch over a short span of swaps.
  const rows = await queryRows<{ author: string; token: string }>(ch, `${closingCalls('{hi:UInt32}')} ORDER BY first_called_at, author, token`, { lo, hi })
  return rows.map((r) => [r.author, r.token] as const)
}

/** The graded calls of `tokens`, cancelled ones included: call_grades_by_token by key. */
export async function gradedCallsOfTokens(ch: ClickHouseClient, tokens: string[]): Promise<CallKey[]> {
  if (tokens.length === 0) return []
  const rows = await queryRows<{ author: string; token: string }>(
    ch,
    'SELECT DISTINCT author, token FROM call_grades_by_token WHERE token IN {tokens:Array(String)}',
    { tokens },
  )
  return rows.map((r) => [r.author, r.token] as const)
}

/** The calls of `keys` as they are now: `calls` by its key (author, token). */
export async function callFacts(ch: ClickHouseClient, keys: CallKey[]): Promise<CallFacts[]> {
  if (keys.length === 0) return []
  const rows = await queryRows<{ author: string; token: string; called_at: string; captured_at: string; post_id: string }>(
    ch,
    `SELECT author, token, toUnixTimestamp(min(called_at)) AS called_at, toUnixTimestamp(min(captured_at)) AS captured_at, argMinMerge(first_post) AS post_id
     FROM calls WHERE (author, token) IN {keys:Array(Tuple(String, String))} GROUP BY author, token`,
    { keys: tupleParam(keys) },
  )
  return rows.map((r) => ({ author: r.author, token: r.token, calledAt: Number(r.called_at), capturedAt: Number(r.captured_at), postId: r.post_id }))
}

/**
 * Entry and exit of each call in its window: the first and the last swap (by block and log) of
 * the token in [called_at, called_at + window], priced as WETH per token unit over swaps that
 * moved tokens. swaps_by_token by key (chain, token), pruned to the calls' hours by the minmax
 * index on block time. A call without a swap in its window has no row.
 */
export async function windowPrices(ch: ClickHouseClient, chainId: number, calls: CallFacts[]): Promise<Map<string, { entry: WindowPrice; exit: WindowPrice }>> {
  const out = new Map<string, { entry: WindowPrice; exit: WindowPrice }>()
  if (calls.length === 0) return out
  const from = Math.min(...calls.map((c) => c.calledAt))
  const to = Math.max(...calls.map((c) => c.calledAt)) + CALL_WINDOW_SECONDS
  const rows = await queryRows<{ author: string; token: string; entry_price: number; entry_at: string; exit_price: number; exit_at: string }>(
    ch,
    `WITH
       c AS (SELECT x.1 AS author, x.2 AS token, toDateTime(x.3) AS called_at FROM (SELECT arrayJoin({calls:Array(Tuple(String, String, UInt32))}) AS x)),
       p AS (
         SELECT token, block_number, log_index, block_time, toFloat64(weth_in + weth_out) / toFloat64(token_in + token_out) AS price
         FROM swaps_by_token
         WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} AND token_in + token_out > 0
           AND block_time >= toDateTime({from:UInt32}) AND block_time <= toDateTime({to:UInt32})
       )
     SELECT c.author AS author, c.token AS token,
            argMin(p.price, (p.block_number, p.log_index)) AS entry_price,
            toUnixTimestamp(argMin(p.block_time, (p.block_number, p.log_index))) AS entry_at,
            argMax(p.price, (p.block_number, p.log_index)) AS exit_price,
            toUnixTimestamp(argMax(p.block_time, (p.block_number, p.log_index))) AS exit_at
     FROM c INNER JOIN p ON p.token = c.token
     WHERE p.block_time >= c.called_at AND p.block_time <= c.called_at + ${CALL_WINDOW_SECONDS}
     GROUP BY author, token`,
    { chain: chainId, calls: tupleParam(calls.map((c) => [c.author, c.token, c.calledAt])), tokens: [...new Set(calls.map((c) => c.token))], from, to },
  )
  for (const r of rows) {
    out.set(`${r.author}\u0000${r.token}`, { entry: { price: Number(r.entry_price), at: Number(r.entry_at) }, exit: { price: Number(r.exit_price), at: Number(r.exit_at) } })
  }
  return out
}

/** Each token's run (the time it became real), for those that ran: token_real by key. */
export async function runsOf(ch: ClickHouseClient, chainId: number, tokens: string[]): Promise<Map<string, number>> {
  if (tokens.length === 0) return new Map()
  const rows = await queryRows<{ token: string; t: string }>(
    ch,
    'SELECT token, toUnixTimestamp(min(real_at)) AS t FROM token_real WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token',
    { chain: chainId, tokens },
  )
  return new Map(rows.map((r) => [r.token, Number(r.t)]))
}
