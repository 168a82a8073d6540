import { z } from 'zod'
import { VERDICT_REASON_CODES, VERDICT_SIGNALS, verdict, verdictOfUntracked } from '../../core/domain/verdict.ts'
import type { DeployerRecord } from '../../core/records/deployer-state.ts'
import type { TokenRecord } from '../../core/records/token-state.ts'
import { verdictInputs } from '../../core/records/verdict-inputs.ts'

/** The JSON view of a token's verdict, with the zod schemas that document it. */
export const VerdictReasonView = z.object({
  code: z.enum(VERDICT_REASON_CODES),
  signal: z.enum(VERDICT_SIGNALS).meta({ description: 'the signal this rule places the token at' }),
  measured: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])).meta({ description: 'the measured values the rule was decided on (wei as decimal strings)' }),
})

/** The verdict of a token (an untracked token: high_risk, confidence 0, reason not_tracked). */
export const VerdictView = z.object({
  signal: z.enum(VERDICT_SIGNALS).meta({ description: 'low_risk, moderate_risk, high_risk, avoid' }),
  confidence: z.number().min(0).max(1).meta({ description: 'how much is measured about the token and its deployer, not a probability of an outcome' }),
  reasons: z.array(VerdictReasonView),
})

export function verdictView(t: TokenRecord | undefined, d: DeployerRecord | undefined): z.infer<typeof VerdictView> {
  if (!t) return verdictOfUntracked()
  return verdict(verdictInputs(t, d))
}
