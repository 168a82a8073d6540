import { z } from 'zod'
import { TG_K_THRESHOLD } from '../social/room-lead.ts'
import { Address, BlockNumber, Measured, Wei } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { agentFeatures } from './features-serving.ts'
import { DeployerView } from '../token/deployer-view.ts'
import { PriceView, TokenView } from '../token/token-view.ts'

/** Every field states its clock: chain (block time / block number), capture (when the social data was captured) or wall (server time). */
const chain = (s: string) => ({ description: `[chain clock] ${s}` })
const capture = (s: string) => ({ description: `[capture clock] ${s}` })
const wall = (s: string) => ({ description: `[wall clock] ${s}` })

/** A shared view with every field (nested objects too) tagged with its clock. */
function clocked<T extends z.ZodType>(schema: T, tag: (s: string) => { description: string }): T {
  const s = schema as unknown as z.ZodType
  if (s instanceof z.ZodNullable) return clocked(s.unwrap() as z.ZodType, tag).nullable().meta(tag(s.description ?? (s.unwrap() as z.ZodType).description ?? 'may be null')) as unknown as T
  if (s instanceof z.ZodObject) {
    const shape = Object.fromEntries(Object.entries(s.shape as Record<string, z.ZodType>).map(([k, v]) => [k, clocked(v, tag).meta(tag(v.description ?? k.replace(/_/g, ' ')))]))
    return z.object(shape).meta(tag(s.description ?? 'object')) as unknown as T
  }
  return s as unknown as T
}

const Identity = z
  .object({
    found: z.boolean().meta(chain('false for a token never seen on chain 4663')),
    name: z.string().nullable().meta(chain('ERC20 name read at creation')),
    symbol: z.string().nullable().meta(chain('ERC20 symbol read at creation')),
    decimals: z.number().int().nullable().meta(chain('ERC20 decimals read at creation')),
    deployer: z.string().nullable().meta(chain('from of the transaction that created the contract')),
    created_block: BlockNumber.nullable().meta(chain('block of the contract creation')),
    created_at: z.string().nullable().meta(chain('block time of the contract creation')),
    first_pool: clocked(TokenView.shape.launch, chain).meta(chain("the token's first WETH pool (the launch): pool, protocol, block, block time")),
    initial_liquidity: z
      .object({
        provider: z.string().meta(chain('sender of the transaction that added it')),
        block: BlockNumber.meta(chain('block of the first liquidity')),
        at: z.string().meta(chain('block time of the first liquidity')),
        weth_wei: Wei.meta(chain('WETH side of the first mint, exact wei (0 for v4 positions, whose amounts are not logged)')),
        token_amount: Wei.meta(chain('token side of the first mint, base units')),
        liquidity_units: Wei.meta(chain("the first mint in the pool's protocol units (v2: WETH wei; v3: L; v4: liquidityDelta)")),
      })
      .nullable()
      .meta(chain('the first liquidity added to the first pool; null before it')),
    supply_wei: Wei.nullable().meta(chain('minted minus burned, base units, at the measured-through block')),
  })
  .meta(chain('immutable launch facts (supply changes only by mint or burn)'))

const CurrentState = z
  .object({
    activity: z
      .object({
        swaps: TokenView.shape.swaps.meta(chain('swap events against WETH pools')),
        weth_volume_wei: TokenView.shape.weth_volume_wei.meta(chain('WETH in plus WETH out over all swaps, exact wei')),
        unique_traders: TokenView.shape.unique_traders.meta(chain('distinct transaction senders of swaps')),
        first_swap_block: BlockNumber.nullable().meta(chain('block of the first swap')),
        last_swap_block: BlockNumber.nullable().meta(chain('block of the latest swap')),
        last_swap_at: z.string().nullable().meta(chain('block time of the latest swap')),
        is_real: z.boolean().meta(chain(TokenView.shape.is_real.description ?? 'real')),
        real_block: BlockNumber.nullable().meta(chain('the exact block in which the token became real')),
        real_at: z.string().nullable().meta(chain('block time of real_block')),
        dead: z.boolean().meta(chain('dead at the measured-through block time')),
        dead_reason: TokenView.shape.dead_reason.meta(chain('idle_72h or liquidity_removed')),
      })
      .meta(chain('activity as of the measured-through block (as /token)')),
    deployer: clocked(DeployerView.nullable(), chain).meta(chain("the deployer's current track record (as /deployer); null when the creation was not observed")),
    quote: clocked(PriceView.nullable(), chain).meta(chain('the latest price/FDV quote; observed_at is the block time of the swap it comes from')),
  })
  .meta(chain('recomputed in place at every batch, carries no history: never join it to a past timestamp'))

const Observed = z
  .object({
    mentions: z.number().int().meta(capture('exact count of distinct posts mentioning the token (as /mentions total)')),
    distinct_accounts: z.number().int().meta(capture('distinct accounts that mentioned it')),
    first_mention: z
      .object({ posted_at: z.string().meta(capture('posting time of the first mention')), captured_at: z.string().meta(capture('when that post was captured')) })
      .nullable()
      .meta(capture('the first-ever mention; null without one')),
    velocity_24h: z
      .array(z.object({ hour: z.string(), mentions: z.number().int() }))
      .meta(capture('mentions per hour over the 24 hours ending with the hour of the newest captured mention (as /mentions)')),
    measured_callers: z.number().int().meta(capture('how many of the mentioning accounts are measured callers (4+ graded calls)')),
    best_early_rate: z.number().nullable().meta(capture('the highest early_rate among those measured callers; null without one')),
    cluster_share: z.number().nullable().meta(capture('share of the mentioning accounts that are in a mutual-follow cluster')),
    independent_voices: z.number().int().meta(capture('accounts with each mutual-follow cluster counted once (as /mentions voices)')),
    messaging: z
      .object({
        reportable: z.boolean().meta(capture(`seen in at least ${TG_K_THRESHOLD} distinct messaging rooms`)),
        k_threshold: z.number().int(),
        first_seen_at: z.string().nullable().meta(capture('first sighting in a messaging room; null unless reportable')),
        rooms: z.number().int().nullable().meta(capture('distinct rooms (never named); null unless reportable')),
        messages: z.number().int().nullable().meta(capture('sightings; null unless reportable')),
      })
      .meta(capture('the count-gated first sighting on the messaging platform (as /tg/first-call)')),
    roster_traders: z
      .number()
      .int()
      .nullable()
      .meta(capture('tracked-roster wallets the live tape recorded trading the token: a count, wallets never identified; null when the roster tape is not available (see coverage.missing)')),
  })
  .meta(capture('append-only observations on the immutable capture clock: safe for historical reasoning'))

export const AgentFeaturesResponse = z.object({
  data: z.object({
    token: z.string().meta(chain('the token address (lowercase)')),
    identity: Identity,
    current_state: CurrentState,
    observed: Observed,
    coverage: z
      .object({
        chain: z
          .object({ measured_through_block: BlockNumber.nullable().meta(chain('identity and current_state are measured through this block')), chain_time: z.string().nullable().meta(chain('block time of that block')) })
          .meta(chain('the chain edge')),
        capture: z
          .object({
            mentions_through_hour: z.string().nullable().meta(capture('hour of the newest captured mention (the social corpus edge)')),
            rooms_through: z.string().nullable().meta(capture('newest messaging-room sighting (the room corpus edge)')),
          })
          .meta(capture('the social edges')),
        generated_at: z.string().meta(wall('server time this row was computed (it is cached until the chain or social data move)')),
        missing: z.array(z.string()).meta(wall('what is not measured for this token, field by field')),
      })
      .meta(wall('what each block of data is measured through, and what is missing')),
  }),
  point_in_time: z.literal(false).meta({ description: 'always false: the row is as of now; there is no as-of mode' }),
  ...Measured,
})

export const agentFeaturesEndpoint = defineEndpoint<Uses<'ch' | 'watermarks' | 'tokens' | 'social'>>()({
  method: 'GET',
  path: '/agent/features',
  summary: 'Agent feature row',
  description:
    'One feature row per token for agents: identity (immutable launch facts), current_state (recomputed in place, no history), observed (append-only, capture clock) and coverage; every field states its clock in its description: [chain clock] block time/number, [capture clock] when social data was captured, [wall clock] server time. point_in_time is always false: there is no as-of mode. Measurements only. Unknown tokens answer identity.found:false.',
  tags: ['token'],
  query: z.object({ token: Address }),
  response: AgentFeaturesResponse,
  access: { kind: 'paid', price: '0.03' },
  tool: { name: 'svc_agent_features' },
  handler: ({ query, deps }) => agentFeatures(deps, query.token),
})
