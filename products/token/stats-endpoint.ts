import { z } from 'zod'
import { KeptByInputs } from '../../core/serving/kept-by-inputs.ts'
import { readAheadWhileAsked } from '../../core/serving/read-ahead-on-advance.ts'
import { renderOnce } from '../../core/serving/rendered-json.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { sqlFile } from '../../sql/sql-file.ts'
import { BlockNumber, Wei } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'

const CHAINS = [4663] as const

const ChainTotals = z.object({
  chain_id: z.number().int(),
  measured_through_block: BlockNumber.nullable(),
  last_block_time: z.string().nullable(),
  blocks_indexed: z.number().int(),
  tokens_launched: z.number().int(),
  tokens_traded: z.number().int(),
  pools: z.number().int(),
  swaps: z.number().int(),
  transfers: z.number().int(),
  weth_volume_wei: Wei,
  unique_traders: z.number().int(),
  launches: z.number().int().meta({ description: "tokens with a WETH pool (the launch feed)" }),
  real_tokens: z.number().int(),
  dead_tokens: z.number().int(),
  deployers: z.number().int().meta({ description: 'addresses with at least one launch' }),
})

interface Row {
  blocks_indexed: string
  last_block_time: string
  tokens_launched: string
  pools: string
  transfers: string
  tokens_traded: string
  swaps: string
  weth_volume: string
  traders: string
}

type StatsDeps = Uses<'cache' | 'ch' | 'tokens' | 'watermarks'>

export const statsEndpoint = defineEndpoint<StatsDeps>()({
  method: 'GET',
  path: '/stats',
  summary: 'Service statistics',
  description: 'Totals per tracked chain: blocks indexed, launches, pools, swaps, transfers, WETH volume (exact wei) and distinct traders, with the block they are measured through.',
  tags: ['service'],
  response: z.object({ data: z.object({ chains: z.array(ChainTotals) }) }),
  access: { kind: 'free' },
  tool: { name: 'svc_stats' },
  async handler({ deps }) {
    readAhead(deps)
    const chains = await Promise.all(CHAINS.map((chain) => chainTotals(deps, chain)))
    // Made, and written to JSON, once per pair of chain totals (each kept per watermark).
    return { data: keptStats.get('stats', chains, () => renderOnce({ chains })) }
  },
})

const keptStats = new KeptByInputs<{ chains: Array<z.infer<typeof ChainTotals>> }>(1)

/** A chain's totals, read once per served batch of the chain (kept per watermark). */
function chainTotals(deps: StatsDeps, chain: (typeof CHAINS)[number]) {
  return deps.cache.get(`stats:${chain}`, deps.watermarks.version(chain), async () => {
    const [[r], totals] = await Promise.all([queryRows<Row>(deps.ch, sqlFile(new URL('./chain-stats.sql', import.meta.url)), { chain }), deps.tokens.totals()])
    const blocks = Number(r!.blocks_indexed)
    return {
      chain_id: chain,
      measured_through_block: deps.watermarks.get(chain),
      last_block_time: blocks > 0 ? r!.last_block_time : null,
      blocks_indexed: blocks,
      tokens_launched: Number(r!.tokens_launched),
      tokens_traded: Number(r!.tokens_traded),
      pools: Number(r!.pools),
      swaps: Number(r!.swaps),
      transfers: Number(r!.transfers),
      weth_volume_wei: r!.weth_volume,
      unique_traders: Number(r!.traders),
      launches: totals.launched,
      real_tokens: totals.real,
      dead_tokens: totals.dead,
      deployers: totals.deployers,
    }
  })
}

/** Per API (its watermarks): a chain's totals read as soon as it advances while /stats is asked. */
const following = new WeakMap<StatsDeps['watermarks'], { asked(): void }>()

/** The first request after a batch joins the read of its totals, or finds it done. */
function readAhead(deps: StatsDeps): void {
  let ahead = following.get(deps.watermarks)
  if (!ahead) {
    ahead = readAheadWhileAsked(deps.watermarks, (source) => {
      const chain = CHAINS.find((c) => c === source)
      if (chain !== undefined) chainTotals(deps, chain).catch(() => {})
    })
    following.set(deps.watermarks, ahead)
  }
  ahead.asked()
}
