import { z } from 'zod'
import { BASKET_RULES_MARKDOWN, type RecordedMark } from './basket.ts'
import { BlockNumber, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { basketFigures, LaunchWindow } from './outcome-serving.ts'
import { iso } from '../social/caller-view.ts'

/** Members listed, newest launch first. */
const MEMBERS_LIMIT = 200

const Mark = z
  .object({
    marked_block: BlockNumber.meta({ description: 'the served block at which the mark was taken' }),
    marked_at: z.string().meta({ description: 'block time of marked_block (chain clock)' }),
    price_weth: z.string().nullable().meta({ description: 'latest swap price at the mark, WETH per whole token' }),
    return: z.number().nullable().meta({ description: 'measured: mark price / entry price - 1' }),
    is_real: z.boolean().meta({ description: 'the token was real at the mark' }),
    dead: z.string().nullable().meta({ description: 'dead reason at the mark, or null' }),
  })
  .nullable()
  .meta({ description: 'null until chain time reaches the horizon' })

const Horizons = <T extends z.ZodType>(t: T) => z.object({ '1h': t, '24h': t, '7d': t })

const Member = z.object({
  token: z.string(),
  symbol: z.string().nullable(),
  launched_at: z.string().meta({ description: 'block time of the launch' }),
  verdict_taken_block: BlockNumber.meta({ description: 'the block at which the +15 min verdict was taken and recorded' }),
  verdict_taken_at: z.string(),
  lag_seconds: z.number().int().meta({ description: 'how long after launch + 15 min the verdict was taken' }),
  confidence: z.number(),
  entry_price_weth: z.string().meta({ description: 'the recorded price when the verdict was taken (WETH per whole token)' }),
  entry_quote_block: BlockNumber,
  marks: Horizons(Mark),
})

function markView(m: RecordedMark | undefined): z.infer<typeof Mark> {
  if (!m) return null
  return { marked_block: m.markedBlock, marked_at: iso(m.markedAt), price_weth: m.price, return: m.return, is_real: m.isReal, dead: m.dead }
}

export const BasketResponse = z.object({
  data: z.object({
    members: z.array(Member).meta({ description: 'basket members, newest launch first (at most 200)' }),
    members_total: z.number().int(),
    truncated: z.boolean(),
    excluded: z.object({
      late: z.number().int().meta({ description: 'low_risk verdicts taken more than 600 s after their due time, left out' }),
      unpriced: z.number().int().meta({ description: 'low_risk verdicts without a price when taken (no swap yet), left out' }),
    }),
    horizons: Horizons(
      z.object({
        marked: z.number().int().meta({ description: 'members with a measured return at this horizon' }),
        hit_rate: z.number().nullable().meta({ description: 'share of those with a return above 0' }),
        median_return: z.number().nullable().meta({ description: 'median measured return' }),
      }),
    ),
    equity_curve: z
      .array(
        z.object({
          at: z.string().meta({ description: 'block time of the 24 h mark that closed a position' }),
          block: BlockNumber,
          closed: z.number().int().meta({ description: 'positions closed so far' }),
          equity: z.number().meta({ description: 'sum of (1 + 24 h return) over the closed positions, each staked 1' }),
          cumulative_return: z.number().meta({ description: 'equity / closed - 1' }),
        }),
      )
      .meta({ description: 'measured equity after each 24 h mark, in chain-time order' }),
    window: LaunchWindow.meta({ description: 'launch times of the first and last members' }),
  }),
  ...Measured,
})

export const basketEndpoint = defineEndpoint<Uses<'ch' | 'cache' | 'watermarks' | 'tokens'>>()({
  method: 'GET',
  path: '/basket',
  summary: 'Paper basket',
  description: `Live forward paper-basket track record on chain 4663: every launch whose verdict 15 minutes after launch was low_risk enters at its then price; marked at 1 h, 24 h and 7 d. Members, hit rate, median returns and the equity curve, all measured from recorded prices, never projected, with the block measured through.\n\n${BASKET_RULES_MARKDOWN}`,
  tags: ['proof'],
  response: BasketResponse,
  access: { kind: 'free' },
  tool: { name: 'svc_basket' },
  async handler({ deps }) {
    const b = await basketFigures(deps, MEMBERS_LIMIT)
    return {
      data: {
        members: b.members.map((v) => ({
          token: v.token,
          symbol: v.symbol || null,
          launched_at: iso(v.launchedAt),
          verdict_taken_block: v.takenBlock,
          verdict_taken_at: iso(v.takenAt),
          lag_seconds: v.lagSeconds,
          confidence: v.confidence,
          entry_price_weth: v.entryPrice!,
          entry_quote_block: v.entryBlock!,
          marks: { '1h': markView(v.marks['1h']), '24h': markView(v.marks['24h']), '7d': markView(v.marks['7d']) },
        })),
        members_total: b.membersTotal,
        truncated: b.membersTotal > MEMBERS_LIMIT,
        excluded: { late: b.late, unpriced: b.unpriced },
        horizons: b.perHorizon,
        equity_curve: b.equity.map((p) => ({ ...p, at: iso(p.at) })),
        window: b.window,
      },
      chain_id: deps.tokens.chainId,
      measured_through_block: deps.tokens.measuredThrough(),
    }
  },
})
