import { z } from 'zod'
import { PULSE_RULE_CODES, PULSE_RULES_MARKDOWN, PULSE_SIGNALS } from './pulse.ts'
import { Address, BlockNumber, Measured, Wei } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { tokenPulse } from './pulse-serving.ts'

const Hour = z.object({
  swaps: z.number().int().meta({ description: 'swap events against WETH pools in the window (chain clock)' }),
  weth_volume_wei: Wei.meta({ description: 'WETH in plus WETH out of those swaps, exact wei (chain clock)' }),
  weth_volume: z.number().meta({ description: 'the same volume in WETH, as a number (rounded to 9 decimals)' }),
  traders: z.number().int().meta({ description: 'distinct transaction senders of the swaps (chain clock)' }),
  buyers: z.number().int().meta({ description: 'distinct senders of swaps that paid WETH in (bought the token)' }),
  sellers: z.number().int().meta({ description: 'distinct senders of swaps that took WETH out (sold the token)' }),
  net_buyers: z.number().int().meta({ description: 'buyers minus sellers (a wallet that did both counts on both sides)' }),
  mentions: z.number().int().meta({ description: 'distinct posts mentioning the token, by posting time in the window' }),
  accounts: z.number().int().meta({ description: 'distinct accounts among them' }),
  independent_voices: z.number().int().meta({ description: 'accounts with each mutual-follow cluster counted once' }),
  close_price_weth: z.string().nullable().meta({ description: 'WETH per whole token at the last priced swap at or before the window end (decimal string)' }),
  close_block: BlockNumber.nullable().meta({ description: 'block of that swap' }),
  liquidity_added: Wei.meta({ description: "liquidity added to the launch pool in the window, in the pool's protocol units (v2: WETH wei)" }),
  liquidity_removed: Wei.meta({ description: 'liquidity removed from the launch pool in the window, same units' }),
})

export const PulseResponse = z.object({
  signal: z.enum(PULSE_SIGNALS).meta({ description: 'heating, steady, cooling or dormant: the state the measured counts are in (rules in the description)' }),
  data: z.object({
    token: z.string(),
    found: z.boolean().meta({ description: 'false for a token never seen on chain 4663 (all counts 0)' }),
    rule: z.enum(PULSE_RULE_CODES).meta({ description: 'the rule that decided the signal' }),
    window: z.object({
      clock: z.literal('chain').meta({ description: 'windows are on the chain clock (block time)' }),
      chain_time: z.string().nullable().meta({ description: 'block time of the block the answer is measured through' }),
      last: z.object({ from: z.string(), to: z.string() }).meta({ description: 'the last hour: [from, to), the 60 minutes ending with the minute of chain_time' }),
      previous: z.object({ from: z.string(), to: z.string() }).meta({ description: 'the hour before it' }),
    }),
    last_hour: Hour,
    previous_hour: Hour,
    velocity: z
      .object({
        swaps_ratio: z.number().nullable(),
        traders_ratio: z.number().nullable(),
        weth_volume_ratio: z.number().nullable(),
        mentions_ratio: z.number().nullable(),
        voices_ratio: z.number().nullable(),
      })
      .meta({ description: 'last hour / previous hour of each count (null when the previous hour had none)' }),
    price_move: z.number().nullable().meta({ description: "last hour's close price / previous hour's close price - 1 (null without both)" }),
    liquidity: z
      .object({
        pool: z.string(),
        protocol: z.string(),
        start_of_last_hour: Wei.meta({ description: 'launch-pool liquidity (added minus removed) at the start of the last hour, protocol units' }),
        now: Wei.meta({ description: 'launch-pool liquidity at the measured-through block' }),
        net_change_last_hour: z.string().regex(/^-?\d+$/).meta({ description: 'added minus removed in the last hour (signed integer string)' }),
        removed_share_last_hour: z.number().meta({ description: 'net removed in the last hour / liquidity at its start (0 when nothing net was removed)' }),
      })
      .nullable()
      .meta({ description: 'liquidity change of the launch pool; null before a launch' }),
  }),
  ...Measured,
})

export const pulseEndpoint = defineEndpoint<Uses<'ch' | 'cache' | 'watermarks' | 'tokens' | 'social'>>()({
  method: 'GET',
  path: '/pulse/{token}',
  summary: 'Token pulse',
  description: `The short-horizon state of a token on chain 4663, measured over the last hour against the hour before it: swaps, WETH volume (exact wei and a number), distinct traders, buyers, sellers and net buyers, mentions and independent voices, their ratios (velocity), the price move and the launch pool's liquidity change, with a signal. Measurements only, no forecast.\n\n${PULSE_RULES_MARKDOWN}`,
  tags: ['token'],
  params: z.object({ token: Address }),
  response: PulseResponse,
  access: { kind: 'paid', price: '0.04' },
  tool: { name: 'svc_pulse' },
  handler: ({ params, deps }) => tokenPulse(deps, params.token),
})
