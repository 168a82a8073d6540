import { z } from 'zod'
import { BASKET_RULES_MARKDOWN } from './basket.ts'
import { VERDICT_SIGNALS } from './verdict.ts'
import { Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { LaunchWindow, proofFigures } from './outcome-serving.ts'

export const ProofResponse = z.object({
  data: z.object({
    signals: z.array(
      z.object({
        signal: z.enum(VERDICT_SIGNALS).meta({ description: 'the recorded +15 min verdict signal' }),
        tokens: z.number().int().meta({ description: 'launches whose recorded verdict had this signal (on time)' }),
        marked_7d: z.number().int().meta({ description: 'of those, how many have reached their 7 d mark' }),
        became_real_share: z.number().nullable().meta({ description: 'share of the 7 d-marked ones that were real at the mark' }),
        dead_within_7d_share: z.number().nullable().meta({ description: 'share of the 7 d-marked ones that were dead at the mark' }),
        marked_24h_with_return: z.number().int().meta({ description: 'how many have a measured 24 h return' }),
        median_return_24h: z.number().nullable().meta({ description: 'median measured 24 h return (mark price / price at the verdict - 1)' }),
      }),
    ),
    late_excluded: z.number().int().meta({ description: 'verdicts taken more than 600 s after their due time, left out' }),
    window: LaunchWindow.meta({ description: 'launch times of the first and last recorded verdicts counted' }),
  }),
  ...Measured,
})

export const proofEndpoint = defineEndpoint<Uses<'ch' | 'cache' | 'watermarks' | 'tokens'>>()({
  method: 'GET',
  path: '/proof.json',
  summary: 'Calibration proof',
  description: `Live calibration of our own verdict on chain 4663, from the verdicts recorded 15 minutes after launch: per verdict signal, how many tokens, the share that became real and the share dead within 7 days (at the 7 d mark), and the median 24 h return, with the window and the block measured through.\n\n${BASKET_RULES_MARKDOWN}`,
  tags: ['proof'],
  response: ProofResponse,
  access: { kind: 'free' },
  async handler({ deps }) {
    const p = await proofFigures(deps, VERDICT_SIGNALS)
    return {
      data: {
        signals: p.rows as Array<z.infer<typeof ProofResponse>['data']['signals'][number]>,
        late_excluded: p.late,
        window: p.window,
      },
      chain_id: deps.tokens.chainId,
      measured_through_block: deps.tokens.measuredThrough(),
    }
  },
})
