import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { ALL_VENUES, DIRECT } from './arc-venues.ts'
import { ARC_CHAIN } from '../../core/chains.ts'
import type { ServingCache } from '../../core/serving/serving-cache.ts'
import type { Watermarks } from '../../core/serving/watermarks.ts'

/**
 * Chain 5042 as the /arc endpoints read it (sql/migrations/024_arc.sql). Every answer is a
 * snapshot at one block W, the chain's served watermark: every read is filtered by
 * `block_number <= W` (rows of a batch still being served are never seen), and the answer states
 * W as measured_through_block. Reads are keyed (by token, deployer, venue, or a launch-order
 * range); answers are cached per key until the 5042 watermark moves.
 */

/** A token is still trading when its pools had a swap within this many seconds before W's block time. */
export const STILL_TRADING_SECONDS = 86_400
/** Launch candidates a feed call reads at most while filtering (then its cursor says how far it looked). */
const FEED_MAX_SCANNED = 20_000
/** Launches listed on a deployer record (its counts cover all of them). */
export const DEPLOYER_TOKENS_LISTED = 100
/** Same-symbol tokens listed (the count covers all of them). */
const SAME_SYMBOL_LISTED = 20

export interface ArcLaunch {
  token: string
  block: number
  txIndex: number
  txHash: string
  time: number
  deployer: string
  via: string
  viaKind: 'pad' | 'factory' | 'direct'
  symbol: string
  name: string
}

export interface ArcPool {
  pool: string
  factory: string
  protocol: string
  otherToken: string
  block: number
  time: number
}

export interface ArcActivity {
  transfers: number
  swaps: number
  volume: bigint
  lastSwapBlock: number | null
  lastSwapTime: number | null
}

export interface ArcTokenRecord {
  launch: ArcLaunch
  firstPool: ArcPool | null
  activity: ArcActivity
  stillTrading: boolean
}

export interface ArcVenueRecord {
  via: string
  kind: 'pad' | 'factory' | 'direct' | 'all'
  launches: number
  pooled: number
  stillTrading: number
  deployers: number
}

export interface ArcDeployerRecord {
  launches: number
  pooled: number
  stillTrading: number
  firstLaunchBlock: number
  lastLaunchBlock: number
  bestToken: ArcTokenRecord | null
  padsUsed: Array<{ via: string; kind: 'pad' | 'factory'; launches: number }>
  tokens: ArcTokenRecord[]
}

export interface ArcFeedPage {
  tokens: ArcTokenRecord[]
  matched: number
  nextBeforeBlock: number
}

/** The edge of a snapshot: W and its block time. */
export interface ArcEdge {
  block: number
  time: number
}

export interface ArcServing {
  /** The configured (and simulated) launchpads and factories. */
  venues: { pads: string[]; factories: string[] }
  /** The first block ingested, or null. */
  firstBlock(): Promise<number | null>
  /** A snapshot read at the current watermark, cached per key and watermark. */
  at<T>(key: string, load: (edge: ArcEdge | null) => Promise<T>): Promise<{ value: T; through: number | null }>
  token(edge: ArcEdge, token: string): Promise<ArcTokenRecord | null>
  holders(edge: ArcEdge, token: string): Promise<number>
  sameSymbol(edge: ArcEdge, symbol: string, except: string): Promise<{ count: number; tokens: ArcLaunch[] }>
  venue(edge: ArcEdge, via: string): Promise<ArcVenueRecord>
  deployer(edge: ArcEdge, address: string): Promise<ArcDeployerRecord | null>
  feed(edge: ArcEdge, q: { limit: number; via?: string; minTransfers?: number; beforeBlock?: number }): Promise<ArcFeedPage>
}

interface LaunchRow {
  token: string
  block_number: string
  tx_index: number
  tx_hash: string
  launched_at: number
  deployer: string
  via: string
  via_kind: ArcLaunch['viaKind']
  symbol: string
  name: string
}

const LAUNCH_COLUMNS = 'token, block_number, tx_index, tx_hash, toUnixTimestamp(launched_at) AS launched_at, deployer, via, via_kind, symbol, name'

function launchOf(r: LaunchRow): ArcLaunch {
  return {
    token: r.token, block: Number(r.block_number), txIndex: Number(r.tx_index), txHash: r.tx_hash, time: Number(r.launched_at),
    deployer: r.deployer, via: r.via, viaKind: r.via_kind, symbol: r.symbol, name: r.name,
  }
}

export function createArcServing(opts: {
  ch: ClickHouseClient
  cache: ServingCache
  watermarks: Watermarks
  venues: { pads: string[]; factories: string[] }
}): ArcServing {
  const { ch, cache, watermarks } = opts
  const chain = ARC_CHAIN
  const kindOf = (via: string): ArcVenueRecord['kind'] =>
    via === ALL_VENUES ? 'all' : via === DIRECT ? 'direct' : opts.venues.pads.includes(via) ? 'pad' : 'factory'

  async function edgeAt(block: number): Promise<ArcEdge> {
    const [r] = await queryRows<{ t: number }>(ch, 'SELECT toUnixTimestamp(timestamp) AS t FROM chain_blocks WHERE chain_id = {chain:UInt32} AND number = {n:UInt64} LIMIT 1', { chain, n: block })
    return { block, time: Number(r?.t ?? 0) }
  }

  async function pools(edge: ArcEdge, tokens: string[]): Promise<Map<string, ArcPool>> {
    if (!tokens.length) return new Map()
    const rows = await queryRows<{ token: string; pool: string; factory: string; protocol: string; other_token: string; block_number: string; t: number }>(
      ch,
      `SELECT token, pool, factory, protocol, other_token, block_number, toUnixTimestamp(created_at) AS t FROM arc_first_pools FINAL
       WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} AND block_number <= {w:UInt64}`,
      { chain, tokens, w: edge.block },
    )
    return new Map(rows.map((r) => [r.token, { pool: r.pool, factory: r.factory, protocol: r.protocol, otherToken: r.other_token, block: Number(r.block_number), time: Number(r.t) }]))
  }

  async function activity(edge: ArcEdge, tokens: string[]): Promise<Map<string, ArcActivity>> {
    if (!tokens.length) return new Map()
    const rows = await queryRows<{ token: string; t: string; s: string; v: string; l: string; lt: number }>(
      ch,
      `SELECT token, argMax(cum_transfers, block_number) AS t, argMax(cum_swaps, block_number) AS s, toString(argMax(cum_volume, block_number)) AS v,
              max(last_swap_block) AS l, toUnixTimestamp(maxIf(block_time, swaps > 0)) AS lt
       FROM arc_token_activity WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} AND block_number <= {w:UInt64} GROUP BY token`,
      { chain, tokens, w: edge.block },
    )
    return new Map(
      rows.map((r) => {
        const swaps = Number(r.s)
        return [r.token, { transfers: Number(r.t), swaps, volume: BigInt(r.v), lastSwapBlock: swaps > 0 ? Number(r.l) : null, lastSwapTime: swaps > 0 ? Number(r.lt) : null }]
      }),
    )
  }

  async function records(edge: ArcEdge, launches: ArcLaunch[]): Promise<ArcTokenRecord[]> {
    const tokens = launches.map((l) => l.token)
    const [p, a] = await Promise.all([pools(edge, tokens), activity(edge, tokens)])
    return launches.map((launch) => {
      const act = a.get(launch.token) ?? { transfers: 0, swaps: 0, volume: 0n, lastSwapBlock: null, lastSwapTime: null }
      return { launch, firstPool: p.get(launch.token) ?? null, activity: act, stillTrading: act.lastSwapTime !== null && act.lastSwapTime > edge.time - STILL_TRADING_SECONDS }
    })
  }

  /** Launch candidates in feed order (newest first) with block <= upper, read from the table kept for that order. */
  async function candidates(upper: number, via: string | undefined, n: number): Promise<{ launches: ArcLaunch[]; full: boolean }> {
    const table = via === undefined ? 'arc_launches_by_block' : 'arc_launches_by_via'
    // Without FINAL, so the read follows the table's order and stops at the limit; a row is
    // written once per launch (deduplicated inserts), and a duplicate left unmerged is dropped here.
    const rows = await queryRows<LaunchRow>(
      ch,
      `SELECT ${LAUNCH_COLUMNS} FROM ${table}
       WHERE chain_id = {chain:UInt32} ${via === undefined ? '' : 'AND via = {via:String}'} AND block_number <= {upper:UInt64}
       ORDER BY block_number DESC, tx_index DESC, token DESC LIMIT {n:UInt32}`,
      { chain, via: via ?? '', upper, n },
    )
    const seen = new Set<string>()
    return { launches: rows.map(launchOf).filter((l) => !seen.has(l.token) && seen.add(l.token)), full: rows.length === n }
  }

  async function venueCounts(edge: ArcEdge, via: string): Promise<{ launches: number; pooled: number; deployers: number }> {
    const [r] = await queryRows<{ l: string; p: string; d: string }>(
      ch,
      `SELECT cum_launches AS l, cum_pooled AS p, cum_deployers AS d FROM arc_venue_stats
       WHERE chain_id = {chain:UInt32} AND via = {via:String} AND block_number <= {w:UInt64} ORDER BY block_number DESC LIMIT 1`,
      { chain, via, w: edge.block },
    )
    return { launches: Number(r?.l ?? 0), pooled: Number(r?.p ?? 0), deployers: Number(r?.d ?? 0) }
  }

  return {
    venues: opts.venues,
    async firstBlock() {
      const [r] = await queryRows<{ n: string }>(ch, 'SELECT number AS n FROM chain_blocks WHERE chain_id = {chain:UInt32} ORDER BY number LIMIT 1', { chain })
      return r ? Number(r.n) : null
    },
    async at(key, load) {
      const through = watermarks.get(chain)
      const value = await cache.get(`arc:${key}`, `${watermarks.version(chain)}@${through}`, async () => load(through === null ? null : await edgeAt(through)))
      return { value, through }
    },
    async token(edge, token) {
      const rows = await queryRows<LaunchRow>(
        ch,
        `SELECT ${LAUNCH_COLUMNS} FROM arc_launches FINAL WHERE chain_id = {chain:UInt32} AND token = {token:String} AND block_number <= {w:UInt64}`,
        { chain, token, w: edge.block },
      )
      if (!rows[0]) return null
      return (await records(edge, [launchOf(rows[0])]))[0]!
    },
    async holders(edge, token) {
      const [r] = await queryRows<{ n: string }>(
        ch,
        `WITH held AS (
           SELECT holder FROM arc_balance_deltas FINAL
           WHERE chain_id = {chain:UInt32} AND token = {token:String} AND block_number <= {w:UInt64}
           GROUP BY holder HAVING sum(delta) > 0)
         SELECT (SELECT count() FROM held) - (
           SELECT count() FROM pools FINAL
           WHERE chain_id = {chain:UInt32} AND pool IN (SELECT holder FROM held) AND (token0 = {token:String} OR token1 = {token:String}) AND block_number <= {w:UInt64}) AS n`,
        { chain, token, w: edge.block },
      )
      return Number(r?.n ?? 0)
    },
    async sameSymbol(edge, symbol, except) {
      if (!symbol) return { count: 0, tokens: [] }
      const rows = await queryRows<LaunchRow & { n: string }>(
        ch,
        `SELECT ${LAUNCH_COLUMNS}, count() OVER () AS n FROM arc_launches_by_symbol FINAL
         WHERE chain_id = {chain:UInt32} AND symbol_lower = {s:String} AND token != {except:String} AND block_number <= {w:UInt64}
         ORDER BY block_number DESC, tx_index DESC LIMIT {n:UInt32}`,
        { chain, s: symbol.toLowerCase(), except, w: edge.block, n: SAME_SYMBOL_LISTED },
      )
      return { count: Number(rows[0]?.n ?? 0), tokens: rows.map(launchOf) }
    },
    async venue(edge, via) {
      const counts = await venueCounts(edge, via)
      const [r] = await queryRows<{ n: string }>(
        ch,
        // Strictly increasing block times: a block within the window is at most that many blocks back.
        `SELECT uniqExact(token) AS n FROM arc_activity_by_block
         WHERE chain_id = {chain:UInt32} AND block_number <= {w:UInt64} AND block_number + {window:UInt64} > {w:UInt64}
           AND swaps > 0 AND toUnixTimestamp(block_time) > {since:Int64} ${via === ALL_VENUES ? '' : 'AND via = {via:String}'}`,
        { chain, w: edge.block, window: STILL_TRADING_SECONDS, since: edge.time - STILL_TRADING_SECONDS, via },
      )
      return { via, kind: kindOf(via), ...counts, stillTrading: Number(r?.n ?? 0) }
    },
    async deployer(edge, address) {
      const rows = await queryRows<LaunchRow>(
        ch,
        `SELECT ${LAUNCH_COLUMNS} FROM arc_launches_by_deployer FINAL
         WHERE chain_id = {chain:UInt32} AND deployer = {d:String} AND block_number <= {w:UInt64}
         ORDER BY block_number DESC, tx_index DESC, token DESC`,
        { chain, d: address, w: edge.block },
      )
      if (!rows.length) return null
      const all = await records(edge, rows.map(launchOf))
      const pads = new Map<string, number>()
      for (const t of all) if (t.launch.via !== DIRECT) pads.set(t.launch.via, (pads.get(t.launch.via) ?? 0) + 1)
      let best: ArcTokenRecord | null = null
      for (const t of all) if (t.activity.swaps > 0 && (!best || t.activity.swaps > best.activity.swaps)) best = t
      return {
        launches: all.length,
        pooled: all.filter((t) => t.firstPool).length,
        stillTrading: all.filter((t) => t.stillTrading).length,
        firstLaunchBlock: all[all.length - 1]!.launch.block,
        lastLaunchBlock: all[0]!.launch.block,
        bestToken: best,
        padsUsed: [...pads].map(([via, launches]) => ({ via, kind: kindOf(via) as 'pad' | 'factory', launches })).sort((a, b) => b.launches - a.launches || a.via.localeCompare(b.via)),
        tokens: all.slice(0, DEPLOYER_TOKENS_LISTED),
      }
    },
    async feed(edge, q) {
      const min = q.minTransfers ?? 0
      // matched: every launch at W passing the filters, whatever the cursor.
      const matchedP =
        min === 0
          ? venueCounts(edge, q.via ?? ALL_VENUES).then((c) => c.launches)
          : queryRows<{ n: string }>(
              ch,
              `SELECT uniqExact(token) AS n FROM arc_token_activity
               WHERE chain_id = {chain:UInt32} AND block_number <= {w:UInt64} AND cum_transfers >= {min:UInt64} ${q.via === undefined ? '' : 'AND via = {via:String}'}`,
              { chain, w: edge.block, min, via: q.via ?? '' },
            ).then((r) => Number(r[0]?.n ?? 0))
      let upper = Math.min(edge.block, q.beforeBlock === undefined ? edge.block : q.beforeBlock - 1)
      const matches: ArcTokenRecord[] = []
      let scanned = 0
      let chunk = Math.max(2 * q.limit, min > 0 ? 1000 : 0)
      let next = 0
      while (upper >= 0 && q.beforeBlock !== 0) {
        const { launches: rows, full } = await candidates(upper, q.via, chunk)
        let complete = rows
        let more = false
        if (full) {
          // The chunk may end inside a block: keep whole blocks, read the last one again next time.
          const last = rows[rows.length - 1]!.block
          complete = rows.filter((r) => r.block > last)
          if (!complete.length) {
            chunk *= 2
            continue
          }
          more = true
          upper = last
        }
        scanned += complete.length
        const recs = await records(edge, complete)
        matches.push(...recs.filter((r) => r.activity.transfers >= min))
        if (matches.length > q.limit) break
        if (!more) {
          upper = -1
          break
        }
        if (scanned >= FEED_MAX_SCANNED) {
          // Looked far enough for one call: the next starts below what was scanned.
          next = upper + 1
          break
        }
      }
      let page = matches
      if (matches.length > q.limit) {
        // Whole blocks only, so that before_block never splits a block's launches.
        const cut = matches[q.limit]!.launch.block
        page = matches.slice(0, q.limit).filter((m) => m.launch.block > cut)
        if (!page.length) page = matches.filter((m) => m.launch.block === cut)
        next = page[page.length - 1]!.launch.block
      }
      return { tokens: page, matched: await matchedP, nextBeforeBlock: next }
    },
  }
}

declare module '../../core/endpoint/deps.ts' {
  interface ApiDeps {
    /** Chain-5042 launches, pads and deployers (/arc), read as of the 5042 watermark and cached per key until it moves. */
    arc: ArcServing
  }
}
