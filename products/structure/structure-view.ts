import { z } from 'zod'
import { ENTITY_HUB_DEGREE, ENTITY_MAX_DEPTH } from './holder-labels.ts'
import { SMART_MIN_SELLS, SMART_MIN_WIN_RATE } from './smart-holder.ts'
import { STRUCTURE_DIFF_LIMIT, STRUCTURE_TOP_HOLDERS } from './structure-report.ts'
import { Address, BlockNumber, Wei } from '../../core/endpoint/schemas.ts'

/** The JSON of /structure/{token} (products/structure/structure-report.ts builds it). */
export const HolderLabelView = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('deployer') }).meta({ description: "the token's deployer (the `from` of its creating transaction)" }),
    z
      .object({ kind: z.literal('insider'), from: Address, received_wei: Wei, block: BlockNumber })
      .meta({
        description:
          "received the token off-market (not from one of its pools) before the token's first swap from the deployer, from a mint, or from a deployer-funded wallet (one that itself received it that way): its first such receipt",
      }),
    z
      .object({ kind: z.literal('entity'), entity_id: Address.meta({ description: "the entity's lowest wallet address" }), wallets: z.number().int() })
      .meta({
        description: `linked to other wallets by direct off-market transfers of this token (shared funding links through the funder); not through the deployer or a hub (more than ${ENTITY_HUB_DEGREE} counterparties), explored up to ${ENTITY_MAX_DEPTH} transfers away`,
      }),
    z
      .object({ kind: z.literal('round_allocation'), received_wei: Wei, share: z.string().meta({ description: 'the share of supply, a decimal fraction' }) })
      .meta({ description: 'received, off-market before the first swap, exactly k/1000 of supply (0.1% to 50%) or a whole power of ten of tokens (1,000 or more)' }),
    z.object({ kind: z.literal('identity'), handle: z.string() }).meta({ description: 'a social handle linked to the wallet' }),
    z
      .object({ kind: z.literal('smart'), basis: z.enum(['caller_grade', 'fifo_realized']) })
      .meta({ description: `a holder whose measured record is good: over all its tokens, a positive FIFO-realized WETH result with a win rate of at least ${SMART_MIN_WIN_RATE} over at least ${SMART_MIN_SELLS} sells (fifo_realized)` }),
  ])
  .meta({ description: 'a wallet label' })

export const StructureDataView = z.object({
  token: Address,
  found: z.boolean().meta({ description: 'false when the chain has no creation, transfer or pool of the token through the window end' }),
  measured_through_block: BlockNumber.meta({ description: 'the window end: balances are exact through this block' }),
  window: z.object({
    from_block: BlockNumber.meta({ description: 'the baseline: the latest block whose timestamp is at most 86,400 s before to_block (the first ingested block when there is none)' }),
    from_time: z.string(),
    to_block: BlockNumber,
    to_time: z.string(),
  }),
  holders: z.object({
    count: z.number().int().meta({ description: 'wallets with a balance above 0 at the window end; pools and the zero address are not holders' }),
    top: z
      .array(z.object({ address: Address, balance_wei: Wei, share: z.string().meta({ description: 'balance / supply (pools included), 9 decimals' }), labels: z.array(HolderLabelView) }))
      .meta({ description: `the ${STRUCTURE_TOP_HOLDERS} largest holders, largest first` }),
  }),
  diff: z.object({
    summary: z.object({ frozen: z.number().int(), added: z.number().int(), trimmed: z.number().int(), exited: z.number().int() }),
    wallets: z
      .array(
        z.object({
          address: Address,
          class: z.enum(['frozen', 'added', 'trimmed', 'exited']).meta({ description: 'frozen: unchanged; added: grew; trimmed: shrank, still above 0; exited: now 0' }),
          balance_then_wei: Wei,
          balance_now_wei: Wei,
          delta_wei: z.string().regex(/^-?\d+$/).meta({ description: 'now - then, exact, may be negative' }),
          new_holder: z.boolean().meta({ description: 'added from 0 at the baseline' }),
          labels: z.array(HolderLabelView),
        }),
      )
      .meta({ description: `every wallet with a balance at the baseline or now, by absolute delta (then balance now, then address), at most ${STRUCTURE_DIFF_LIMIT}` }),
    total: z.number().int(),
    truncated: z.boolean(),
  }),
  pools: z.array(z.object({ address: Address, balance_wei: Wei })).meta({ description: "the token's pools and their balances at the window end (not holders)" }),
})
