import { z } from 'zod'
import type { ArcLaunch, ArcPool, ArcTokenRecord, ArcVenueRecord } from './arc-serving.ts'

/**
 * JSON views of chain-5042 records (/arc/*). Addresses lowercase; amounts in the token's base
 * units as decimal strings; times ISO 8601 UTC; blocks integers.
 */

const iso = (unix: number) => new Date(unix * 1000).toISOString()
const addr = z.string().meta({ description: 'lowercase 0x address' })

export const ArcLaunchedView = z.object({
  block: z.number().int(),
  time: z.string().meta({ description: 'block time, ISO 8601 UTC' }),
  tx_hash: z.string().meta({ description: 'the transaction that created the token or minted its first supply' }),
  via: addr.nullable().meta({ description: 'the launchpad or factory the launch transaction was sent to or holds a log of; null: a direct launch' }),
  via_kind: z.enum(['pad', 'factory', 'direct']),
  deployer: addr.meta({ description: '`from` of the launch transaction' }),
})

export const ArcPoolView = z.object({
  pool: addr,
  factory: addr,
  protocol: z.enum(['v2', 'v3']).or(z.string()),
  paired_with: addr,
  block: z.number().int(),
  time: z.string(),
})

export const ArcActivityView = z.object({
  transfers: z.number().int().meta({ description: 'Transfer events of the token, its first mint included' }),
  swaps: z.number().int().meta({ description: 'swaps on its pools of configured factories' }),
  volume: z.string().regex(/^\d+$/).meta({ description: 'token amount swapped on those pools (in + out of the token side), base units' }),
  last_swap_block: z.number().int().nullable(),
  still_trading: z.boolean().meta({ description: 'a swap within 24 h before measured_through_block' }),
})

export const ArcTokenView = z.object({
  token: addr,
  symbol: z.string().nullable(),
  name: z.string().nullable(),
  launched: ArcLaunchedView,
  first_pool: ArcPoolView.nullable(),
  activity: ArcActivityView,
})

export const ArcVenueView = z.object({
  address: addr.nullable().meta({ description: 'the pad or factory; null for direct launches or totals' }),
  kind: z.enum(['pad', 'factory', 'direct', 'all']),
  launches: z.number().int(),
  tokens_with_pool: z.number().int(),
  tokens_still_trading: z.number().int(),
  deployers: z.number().int().meta({ description: 'distinct deployers of those launches' }),
})

export const ArcCoverageView = z.object({
  chain_id: z.literal(5042),
  from_block: z.number().int().nullable().meta({ description: 'first block ingested' }),
  through_block: z.number().int().nullable().meta({ description: 'the snapshot edge, = measured_through_block' }),
  launchpads: z.array(addr),
  factories: z.array(addr),
  rule: z.string(),
})

export const ARC_RULE =
  'a token is launched via a pad or factory when the transaction creating it (or minting its first supply) was sent to that address or contains a log it emitted; deployer = that transaction\'s from'

export function launchedView(l: ArcLaunch): z.infer<typeof ArcLaunchedView> {
  return { block: l.block, time: iso(l.time), tx_hash: l.txHash, via: l.via || null, via_kind: l.viaKind, deployer: l.deployer }
}

export function poolView(p: ArcPool | null): z.infer<typeof ArcPoolView> | null {
  return p && { pool: p.pool, factory: p.factory, protocol: p.protocol, paired_with: p.otherToken, block: p.block, time: iso(p.time) }
}

export function arcTokenView(t: ArcTokenRecord): z.infer<typeof ArcTokenView> {
  return {
    token: t.launch.token,
    symbol: t.launch.symbol || null,
    name: t.launch.name || null,
    launched: launchedView(t.launch),
    first_pool: poolView(t.firstPool),
    activity: {
      transfers: t.activity.transfers,
      swaps: t.activity.swaps,
      volume: t.activity.volume.toString(),
      last_swap_block: t.activity.lastSwapBlock,
      still_trading: t.stillTrading,
    },
  }
}

export function venueView(v: ArcVenueRecord): z.infer<typeof ArcVenueView> {
  return {
    address: v.kind === 'pad' || v.kind === 'factory' ? v.via : null,
    kind: v.kind,
    launches: v.launches,
    tokens_with_pool: v.pooled,
    tokens_still_trading: v.stillTrading,
    deployers: v.deployers,
  }
}
