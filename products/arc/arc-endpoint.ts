import { z } from 'zod'
import { Address, Limit } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { ALL_VENUES, DIRECT } from './arc-venues.ts'
import { ARC_CHAIN } from '../../core/chains.ts'
import { DEPLOYER_TOKENS_LISTED, type ArcDeployerRecord, type ArcEdge, type ArcServing } from './arc-serving.ts'
import {
  ARC_RULE, ArcActivityView, ArcCoverageView, ArcLaunchedView, ArcPoolView, ArcTokenView, ArcVenueView,
  arcTokenView, launchedView, poolView, venueView,
} from './arc-view.ts'

/**
 * The second chain (5042) under /arc. Every answer is a snapshot at one block, the chain's
 * served watermark, stated as `measured_through_block` at the top level; nothing in the answer
 * is newer than it (products/arc/arc-serving.ts).
 */

const Through = {
  chain_id: z.literal(ARC_CHAIN),
  measured_through_block: z.number().int().nullable().meta({ description: 'the block chain-5042 data is complete through; every field of the answer is as of this block (null before the first block)' }),
}

const NonNegInt = (what: string) =>
  z.string().regex(/^\d{1,15}$/, `expected ${what} (a non-negative integer)`).transform(Number)

const DeployerRecordView = z.object({
  launches: z.number().int(),
  tokens_with_pool: z.number().int(),
  tokens_still_trading: z.number().int(),
  first_launch_block: z.number().int(),
  last_launch_block: z.number().int(),
  best_token: z.object({ token: z.string(), symbol: z.string().nullable(), swaps: z.number().int(), volume: z.string() }).nullable()
    .meta({ description: 'the deployer\'s token with the most swaps' }),
})

function deployerRecordView(d: ArcDeployerRecord): z.infer<typeof DeployerRecordView> {
  const b = d.bestToken
  return {
    launches: d.launches,
    tokens_with_pool: d.pooled,
    tokens_still_trading: d.stillTrading,
    first_launch_block: d.firstLaunchBlock,
    last_launch_block: d.lastLaunchBlock,
    best_token: b && { token: b.launch.token, symbol: b.launch.symbol || null, swaps: b.activity.swaps, volume: b.activity.volume.toString() },
  }
}

/** The answer envelope: `data` read as one snapshot (cached per key until the 5042 watermark moves) and its edge. */
async function snapshot<T>(arc: ArcServing, key: string, load: (edge: ArcEdge | null) => Promise<T>) {
  const { value, through } = await arc.at(key, load)
  return { data: value, chain_id: ARC_CHAIN, measured_through_block: through }
}

async function coverage(arc: ArcServing, edge: ArcEdge | null): Promise<z.infer<typeof ArcCoverageView>> {
  return {
    chain_id: ARC_CHAIN,
    from_block: edge ? await arc.firstBlock() : null,
    through_block: edge?.block ?? null,
    launchpads: arc.venues.pads,
    factories: arc.venues.factories,
    rule: ARC_RULE,
  }
}

export const arcReportEndpoint = defineEndpoint<Uses<'arc'>>()({
  method: 'GET',
  path: '/arc/report/{token}',
  summary: 'Chain 5042 token report',
  description:
    'A chain-5042 token: its launch (block, time, the pad or factory it went through by the ABI-free rule, deployer), its first pool on a configured factory, activity (transfers, distinct holders, swaps and token volume on its pools), the deployer\'s record, how its pad\'s launches fared, and other tokens with the same symbol. A snapshot: measured_through_block states the edge. found:false when no launch of this token is known.',
  tags: ['arc'],
  params: z.object({ token: Address }),
  response: z.object({
    data: z.object({
      found: z.boolean(),
      symbol: z.string().nullable(),
      launched: ArcLaunchedView.nullable(),
      first_pool: ArcPoolView.nullable(),
      activity: ArcActivityView.extend({ holders: z.number().int().meta({ description: 'addresses holding a positive balance, the zero address and the token\'s pools excluded' }) }).nullable(),
      deployer_record: DeployerRecordView.nullable(),
      pad_record: ArcVenueView.nullable().meta({ description: 'how the launches of the token\'s pad or factory fared; null for a direct launch' }),
      same_symbol: z.object({ count: z.number().int(), tokens: z.array(z.object({ token: z.string(), launched: ArcLaunchedView })) }).nullable(),
      coverage: ArcCoverageView,
    }),
    ...Through,
  }),
  access: { kind: 'paid', price: '0.03' },
  tool: { name: 'svc_arc_report' },
  async handler({ params, deps }) {
    return snapshot(deps.arc, `report:${params.token}`, async (edge) => {
      const t = edge ? await deps.arc.token(edge, params.token) : null
      if (!edge || !t) {
        return { found: false, symbol: null, launched: null, first_pool: null, activity: null, deployer_record: null, pad_record: null, same_symbol: null, coverage: await coverage(deps.arc, edge) }
      }
      const [holders, deployer, pad, same, cov] = await Promise.all([
        deps.arc.holders(edge, t.launch.token),
        deps.arc.deployer(edge, t.launch.deployer),
        t.launch.via === DIRECT ? null : deps.arc.venue(edge, t.launch.via),
        deps.arc.sameSymbol(edge, t.launch.symbol, t.launch.token),
        coverage(deps.arc, edge),
      ])
      const view = arcTokenView(t)
      return {
        found: true,
        symbol: view.symbol,
        launched: view.launched,
        first_pool: view.first_pool,
        activity: { ...view.activity, holders },
        deployer_record: deployer && deployerRecordView(deployer),
        pad_record: pad && venueView(pad),
        same_symbol: { count: same.count, tokens: same.tokens.map((l) => ({ token: l.token, launched: launchedView(l) })) },
        coverage: cov,
      }
    })
  },
})

export const arcDeployerEndpoint = defineEndpoint<Uses<'arc'>>()({
  method: 'GET',
  path: '/arc/deployer/{address}',
  summary: 'Chain 5042 deployer',
  description: `A chain-5042 deployer (the \`from\` of launch transactions): its record (launches, tokens with a pool, tokens still trading, best token), the pads and factories it used, and its latest ${DEPLOYER_TOKENS_LISTED} tokens, newest first. found:false for a wallet that launched nothing: absence of a record, not an error.`,
  tags: ['arc'],
  params: z.object({ address: Address }),
  response: z.object({
    data: z.object({
      found: z.boolean(),
      record: DeployerRecordView.nullable(),
      pads_used: z.array(z.object({ address: z.string(), kind: z.enum(['pad', 'factory']), launches: z.number().int() })),
      tokens: z.array(ArcTokenView),
      coverage: ArcCoverageView,
    }),
    ...Through,
  }),
  access: { kind: 'paid', price: '0.03' },
  async handler({ params, deps }) {
    return snapshot(deps.arc, `deployer:${params.address}`, async (edge) => {
      const d = edge ? await deps.arc.deployer(edge, params.address) : null
      const cov = await coverage(deps.arc, edge)
      if (!d) return { found: false, record: null, pads_used: [], tokens: [], coverage: cov }
      return {
        found: true,
        record: deployerRecordView(d),
        pads_used: d.padsUsed.map((p) => ({ address: p.via, kind: p.kind, launches: p.launches })),
        tokens: d.tokens.map(arcTokenView),
        coverage: cov,
      }
    })
  },
})

export const arcPadsEndpoint = defineEndpoint<Uses<'arc'>>()({
  method: 'GET',
  path: '/arc/pads',
  summary: 'Chain 5042 launchpads',
  description:
    'The configured launchpads and factories of chain 5042, most launches first: per venue its launches, tokens with a pool, tokens still trading (a swap within 24 h before measured_through_block) and distinct deployers; totals over every launch (direct ones included).',
  tags: ['arc'],
  query: z.object({ limit: Limit() }),
  response: z.object({
    data: z.object({
      pads: z.array(ArcVenueView),
      totals: ArcVenueView.extend({ direct: ArcVenueView }),
      coverage: ArcCoverageView,
    }),
    ...Through,
  }),
  access: { kind: 'paid', price: '0.01' },
  async handler({ query, deps }) {
    return snapshot(deps.arc, `pads:${query.limit}`, async (edge) => {
      const venues = [...new Set([...deps.arc.venues.pads, ...deps.arc.venues.factories])]
      const zero = (via: string, kind: 'pad' | 'factory' | 'direct' | 'all') => ({ via, kind, launches: 0, pooled: 0, stillTrading: 0, deployers: 0 })
      const read = (via: string, kind: 'pad' | 'factory' | 'direct' | 'all') => (edge ? deps.arc.venue(edge, via) : Promise.resolve(zero(via, kind)))
      const [rows, all, direct, cov] = await Promise.all([
        Promise.all(venues.map((v) => read(v, deps.arc.venues.pads.includes(v) ? 'pad' : 'factory'))),
        read(ALL_VENUES, 'all'),
        read(DIRECT, 'direct'),
        coverage(deps.arc, edge),
      ])
      rows.sort((a, b) => b.launches - a.launches || a.via.localeCompare(b.via))
      return { pads: rows.slice(0, query.limit).map(venueView), totals: { ...venueView(all), direct: venueView(direct) }, coverage: cov }
    })
  },
})

export const arcFeedEndpoint = defineEndpoint<Uses<'arc'>>()({
  method: 'GET',
  path: '/arc/feed/new',
  summary: 'Chain 5042 launch feed',
  description:
    'Chain-5042 launches, newest first (block, then transaction order), as of measured_through_block. Filters: via (a pad or factory address), min_transfers (Transfer events of the token at least). Page with before_block=next_before_block: every matching token is visited exactly once, also while launches arrive (a page holds whole blocks only, so a block with more matching launches than limit is returned whole). next_before_block 0: no more pages. matched: every matching launch as of measured_through_block, whatever the cursor.',
  tags: ['arc'],
  query: z.object({
    limit: Limit(),
    via: Address.optional(),
    min_transfers: NonNegInt('a transfer count').optional(),
    before_block: NonNegInt('a block number taken from next_before_block').optional(),
  }),
  response: z.object({
    data: z.object({
      tokens: z.array(ArcTokenView),
      matched: z.number().int(),
      next_before_block: z.number().int().meta({ description: 'pass as before_block for the next page; 0 when there is none' }),
      coverage: ArcCoverageView,
    }),
    ...Through,
  }),
  access: { kind: 'paid', price: '0.02' },
  async handler({ query, deps }) {
    const key = `feed:${query.limit}:${query.via ?? ''}:${query.min_transfers ?? 0}:${query.before_block ?? ''}`
    return snapshot(deps.arc, key, async (edge) => {
      if (!edge) return { tokens: [], matched: 0, next_before_block: 0, coverage: await coverage(deps.arc, edge) }
      const [page, cov] = await Promise.all([
        deps.arc.feed(edge, { limit: query.limit, via: query.via, minTransfers: query.min_transfers, beforeBlock: query.before_block }),
        coverage(deps.arc, edge),
      ])
      return { tokens: page.tokens.map(arcTokenView), matched: page.matched, next_before_block: page.nextBeforeBlock, coverage: cov }
    })
  },
})

export const arcEndpoints = [arcReportEndpoint, arcDeployerEndpoint, arcPadsEndpoint, arcFeedEndpoint]
