import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { decodeLog, type DecodedEvent } from '../decode/index.ts'
import type { ChainBlock, ChainLog, ContractCreation } from '../records/chain-block.ts'
import type { TableRows } from '../sink/clickhouse-sink.ts'
import type { FollowedContracts, PoolRegistry } from './pool-registry.ts'
import { ALL_VENUES, DIRECT } from '../../products/arc/arc-venues.ts'

/**
 * Launch attribution of a chain that names launchpads and factories (5042), ABI-free
 * (DESIGN §7): a token is launched at its first sighting, the top-level transaction creating it
 * or the first Transfer from the zero address it emits (a pad creates tokens inside its own
 * transaction, where no creation is visible without traces). It is launched **via** a pad or
 * factory when that transaction was sent to it or holds a log it emitted; its deployer is the
 * transaction's `from`. Its first pool is the first PairCreated (v2) or PoolCreated (v3) of a
 * configured factory naming it. Activity: its Transfer events, balance changes (holders), and
 * swaps and token volume on the pools of configured factories. The pools themselves are not
 * launches, although their liquidity shares are minted ERC20 supply.
 *
 * What the source must capture for this (pipelines/sources/rpc/rpc-source.ts `attribution`):
 * each log's transaction `to`, every log the pads and factories emit whatever its event, and
 * the ERC20 metadata of contracts first seen minting (`minted`).
 */

const ZERO = '0x0000000000000000000000000000000000000000'

export interface ArcTokenState {
  via: string
  transfers: number
  swaps: number
  volume: bigint
  lastSwapBlock: number
  pooled: boolean
}

export interface ArcVenueState {
  launches: number
  pooled: number
  deployers: number
}

/** What attribution carries from batch to batch (loaded at start and after a rollback). */
export interface ArcState {
  tokens: Map<string, ArcTokenState>
  venues: Map<string, ArcVenueState>
  /** `${deployer}|${via}` pairs already seen (via '*': the deployer at all). */
  deployerVenues: Set<string>
}

export type Attribution = NonNullable<FollowedContracts['attribution']>

export function emptyArcState(): ArcState {
  return { tokens: new Map(), venues: new Map(), deployerVenues: new Set() }
}

export async function loadArcState(ch: ClickHouseClient, chainId: number): Promise<ArcState> {
  const p = { chain: chainId }
  const state = emptyArcState()
  const [launches, activity, pools, venues, dv] = await Promise.all([
    queryRows<{ token: string; via: string }>(ch, 'SELECT token, via FROM arc_launches FINAL WHERE chain_id = {chain:UInt32}', p),
    queryRows<{ token: string; t: string; s: string; v: string; l: string }>(
      ch,
      `SELECT token, argMax(cum_transfers, block_number) AS t, argMax(cum_swaps, block_number) AS s, toString(argMax(cum_volume, block_number)) AS v,
              max(last_swap_block) AS l
       FROM arc_token_activity WHERE chain_id = {chain:UInt32} GROUP BY token`,
      p,
    ),
    queryRows<{ token: string }>(ch, 'SELECT token FROM arc_first_pools FINAL WHERE chain_id = {chain:UInt32}', p),
    queryRows<{ via: string; l: string; p: string; d: string }>(
      ch,
      `SELECT via, argMax(cum_launches, block_number) AS l, argMax(cum_pooled, block_number) AS p, argMax(cum_deployers, block_number) AS d
       FROM arc_venue_stats WHERE chain_id = {chain:UInt32} GROUP BY via`,
      p,
    ),
    queryRows<{ deployer: string; via: string }>(ch, 'SELECT deployer, via FROM arc_deployer_venues FINAL WHERE chain_id = {chain:UInt32}', p),
  ])
  for (const l of launches) state.tokens.set(l.token, { via: l.via, transfers: 0, swaps: 0, volume: 0n, lastSwapBlock: 0, pooled: false })
  for (const a of activity) {
    const t = state.tokens.get(a.token)
    if (t) Object.assign(t, { transfers: Number(a.t), swaps: Number(a.s), volume: BigInt(a.v), lastSwapBlock: Number(a.l) })
  }
  for (const r of pools) {
    const t = state.tokens.get(r.token)
    if (t) t.pooled = true
  }
  for (const v of venues) state.venues.set(v.via, { launches: Number(v.l), pooled: Number(v.p), deployers: Number(v.d) })
  for (const r of dv) state.deployerVenues.add(`${r.deployer}|${r.via}`)
  return state
}

type Row = Record<string, unknown>

export interface ArcRows {
  tables: TableRows
  /** Apply the batch to the state: called once its rows are inserted, so a retried insert forms the same rows. */
  commit(): void
}

/**
 * Rows of the arc tables for a batch of blocks; the state is changed only by `commit`.
 * `decoded`: the logs' decodings, when the caller has them (chainRows decodes every log first).
 */
export function arcRows(chainId: number, blocks: ChainBlock[], follow: FollowedContracts, pools: PoolRegistry, state: ArcState, decoded?: ReadonlyMap<ChainLog, DecodedEvent | null>): ArcRows {
  const venuesOf = follow.attribution!
  const isVenue = (a: string | null | undefined) => !!a && (venuesOf.pads.has(a) || venuesOf.factories.has(a))
  // Copy-on-write views of the state: this batch's changes, applied by commit().
  const tokens = new Map<string, ArcTokenState>()
  const venues = new Map<string, ArcVenueState>()
  const deployerVenues = new Set<string>()
  const token = (t: string): ArcTokenState | undefined => {
    const mine = tokens.get(t)
    if (mine) return mine
    const theirs = state.tokens.get(t)
    if (!theirs) return undefined
    const copy = { ...theirs }
    tokens.set(t, copy)
    return copy
  }
  const venue = (v: string): ArcVenueState => {
    let mine = venues.get(v)
    if (!mine) {
      mine = { ...(state.venues.get(v) ?? { launches: 0, pooled: 0, deployers: 0 }) }
      venues.set(v, mine)
    }
    return mine
  }

  const launches: Row[] = []
  const firstPools: Row[] = []
  const activity: Row[] = []
  const balances: Row[] = []
  const venueStats: Row[] = []
  const deployerRows: Row[] = []

  for (const b of blocks) {
    const time = b.timestamp
    // Per transaction: its recipient, sender and the addresses that emitted logs in it, in log order.
    const txs = new Map<string, { to: string | null | undefined; from: string; index: number; emitters: string[] }>()
    const tx = (hash: string, from: string, index: number, to?: string | null) => {
      let t = txs.get(hash)
      if (!t) txs.set(hash, (t = { to, from, index, emitters: [] }))
      if (to !== undefined) t.to = to
      return t
    }
    for (const c of b.creations) tx(c.txHash.toLowerCase(), c.deployer.toLowerCase(), c.txIndex, null)
    for (const l of b.logs) if (!l.removed) tx(l.txHash.toLowerCase(), l.txFrom.toLowerCase(), l.txIndex, l.txTo).emitters.push(l.address.toLowerCase())
    const minted = new Map((b.minted ?? []).map((m) => [m.address.toLowerCase(), m.erc20]))

    const touchedTokens = new Map<string, { transfers: number; swaps: number }>()
    const touchedVenues = new Set<string>()
    const deltas = new Map<string, bigint>()
    const touch = (t: string) => {
      let x = touchedTokens.get(t)
      if (!x) touchedTokens.set(t, (x = { transfers: 0, swaps: 0 }))
      return x
    }

    const launch = (address: string, txHash: string, erc20: { name: string; symbol: string } | undefined) => {
      const t = txs.get(txHash)!
      const via = isVenue(t.to) ? t.to! : (t.emitters.find(isVenue) ?? DIRECT)
      const kind = via === DIRECT ? 'direct' : venuesOf.pads.has(via) ? 'pad' : 'factory'
      const symbol = erc20?.symbol ?? ''
      launches.push({
        chain_id: chainId, token: address, block_number: b.number, tx_index: t.index, tx_hash: txHash, launched_at: time,
        deployer: t.from, via, via_kind: kind, symbol, symbol_lower: symbol.toLowerCase(), name: erc20?.name ?? '',
      })
      tokens.set(address, { via, transfers: 0, swaps: 0, volume: 0n, lastSwapBlock: 0, pooled: false })
      for (const v of [via, ALL_VENUES]) {
        const s = venue(v)
        s.launches++
        const key = `${t.from}|${v}`
        if (!state.deployerVenues.has(key) && !deployerVenues.has(key)) {
          deployerVenues.add(key)
          s.deployers++
          deployerRows.push({ chain_id: chainId, deployer: t.from, via: v, block_number: b.number })
        }
        touchedVenues.add(v)
      }
      touch(address)
    }

    const firstPool = (t: string, pool: string, factory: string, protocol: string, other: string) => {
      const s = token(t)
      if (!s || s.pooled) return
      s.pooled = true
      firstPools.push({ chain_id: chainId, token: t, pool, factory, protocol, other_token: other, block_number: b.number, created_at: time })
      for (const v of [s.via, ALL_VENUES]) {
        venue(v).pooled++
        touchedVenues.add(v)
      }
      touch(t)
    }

    const swapSide = (t: string, amount: bigint) => {
      const s = token(t)
      if (!s) return
      s.swaps++
      s.volume += amount
      s.lastSwapBlock = b.number
      touch(t).swaps++
    }

    const created = (c: ContractCreation) => {
      const address = c.address.toLowerCase()
      if (c.erc20 && !token(address)) launch(address, c.txHash.toLowerCase(), c.erc20)
    }
    const logged = (log: ChainLog) => {
      const ev = decoded?.has(log) ? decoded.get(log)! : decodeLog(log)
      if (!ev || ev.type === 'malformed') return
      switch (ev.type) {
        case 'erc20_transfer': {
          // A pool of a followed factory mints its liquidity shares: a pool, not a launch.
          if (ev.from === ZERO && !token(ev.address) && !pools.get(ev.address)) launch(ev.address, log.txHash.toLowerCase(), minted.get(ev.address) ?? undefined)
          const s = token(ev.address)
          if (!s) return
          s.transfers++
          touch(ev.address).transfers++
          for (const [who, d] of [[ev.from, -ev.value], [ev.to, ev.value]] as const) {
            if (who === ZERO) continue
            const k = `${ev.address}|${who}`
            deltas.set(k, (deltas.get(k) ?? 0n) + d)
          }
          return
        }
        case 'v2_pair_created':
          if (!follow.v2Factories.has(ev.address)) return
          firstPool(ev.token0, ev.pair, ev.address, 'v2', ev.token1)
          firstPool(ev.token1, ev.pair, ev.address, 'v2', ev.token0)
          return
        case 'v3_pool_created':
          if (!follow.v3Factories.has(ev.address)) return
          firstPool(ev.token0, ev.pool, ev.address, 'v3', ev.token1)
          firstPool(ev.token1, ev.pool, ev.address, 'v3', ev.token0)
          return
        case 'v2_swap': {
          const p = pools.get(ev.address)
          if (!p) return
          swapSide(p.token0, ev.amount0In + ev.amount0Out)
          swapSide(p.token1, ev.amount1In + ev.amount1Out)
          return
        }
        case 'v3_swap': {
          const p = pools.get(ev.address)
          if (!p) return
          swapSide(p.token0, ev.amount0 < 0n ? -ev.amount0 : ev.amount0)
          swapSide(p.token1, ev.amount1 < 0n ? -ev.amount1 : ev.amount1)
          return
        }
      }
    }
    // Creations and logs in transaction order; a creation comes before its transaction's logs.
    // Plain records, not a closure per log: making one per log (each named again by the
    // TypeScript loader's `__name`) took about 0.5 s of the pipeline's thread over the default
    // world's backfill (`--cpu-prof`).
    const events: Array<{ txIndex: number; logIndex: number; creation?: ContractCreation; log?: ChainLog }> = []
    for (const c of b.creations) events.push({ txIndex: c.txIndex, logIndex: -1, creation: c })
    for (const log of b.logs) if (!log.removed) events.push({ txIndex: log.txIndex, logIndex: log.logIndex, log })
    events.sort((x, y) => x.txIndex - y.txIndex || x.logIndex - y.logIndex)
    for (const e of events) {
      if (e.log) logged(e.log)
      else created(e.creation!)
    }

    for (const [t, n] of touchedTokens) {
      const s = token(t)!
      activity.push({
        chain_id: chainId, token: t, block_number: b.number, block_time: time, via: s.via, transfers: n.transfers, swaps: n.swaps,
        cum_transfers: s.transfers, cum_swaps: s.swaps, cum_volume: s.volume.toString(), last_swap_block: s.lastSwapBlock,
      })
    }
    for (const [k, d] of deltas) {
      if (d === 0n) continue
      const [t, holder] = k.split('|')
      balances.push({ chain_id: chainId, token: t, holder, block_number: b.number, delta: d.toString() })
    }
    for (const v of touchedVenues) {
      const s = venue(v)
      venueStats.push({ chain_id: chainId, via: v, block_number: b.number, cum_launches: s.launches, cum_pooled: s.pooled, cum_deployers: s.deployers })
    }
  }

  return {
    tables: [
      ['arc_launches', launches],
      ['arc_first_pools', firstPools],
      ['arc_token_activity', activity],
      ['arc_balance_deltas', balances],
      ['arc_venue_stats', venueStats],
      ['arc_deployer_venues', deployerRows],
    ],
    commit() {
      for (const [k, v] of tokens) state.tokens.set(k, v)
      for (const [k, v] of venues) state.venues.set(k, v)
      for (const k of deployerVenues) state.deployerVenues.add(k)
    },
  }
}
