import { z } from 'zod'
import { VERDICT_REASON_CODES, VERDICT_SIGNALS, verdict, verdictOfUntracked, type VerdictSignals } from './verdict.ts'
import type { DeployerRecord } from '../token/deployer-state.ts'
import type { TokenRecord } from '../token/token-state.ts'
import { verdictInputs } from './verdict-inputs.ts'

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

export function verdictView(t: TokenRecord | undefined, d: DeployerRecord | undefined, signals?: VerdictSignals): z.infer<typeof VerdictView> {
  if (!t) return verdictOfUntracked()
  return verdict(verdictInputs(t, d, signals))
}

/** The signals the verdict was decided on beyond the token and deployer records (null: not measured). */
export const VerdictSignalsView = z
  .object({
    lp: z
      .object({
        providers: z.number().int().meta({ description: 'liquidity providers of the launch pool with liquidity still in it' }),
        deployer_share: z.number().meta({ description: "the deployer's share of the launch pool's remaining liquidity" }),
        insider_share: z.number().meta({ description: "insiders' share of it (they can pull it)" }),
      })
      .nullable()
      .meta({ description: 'who can pull the liquidity; null before a launch' }),
    insider_share_now: z.number().nullable().meta({ description: "insiders' (off-market recipients of the deployer before the first swap) share of the supply now" }),
    measured_callers: z
      .object({ count: z.number().int(), best_grade: z.enum(['A', 'B', 'C', 'D']).nullable() })
      .nullable()
      .meta({ description: 'measured callers who called the token and their best grade' }),
    structure: z.enum(['rotation', 'distribution', 'accumulation', 'insufficient_data']).nullable().meta({ description: "the holder-structure verdict of the token's latest structure scan (GET /structure/{token}/history lists them); null: never scanned" }),
    smart_holders: z.number().int().nullable().meta({ description: "how many of the largest holders at the latest structure scan carry the smart label (good FIFO record); null: never scanned" }),
    not_available: z.array(z.string()).meta({ description: 'signals not measured for this answer, and why' }),
  })
  .meta({ description: 'every signal the verdict used, with the values it was decided on' })

export function verdictSignalsView(x: VerdictSignals | undefined): z.infer<typeof VerdictSignalsView> {
  const notAvailable: string[] = []
  if (!x) notAvailable.push('all: the token is not tracked')
  if (x && x.structure === null) notAvailable.push('structure: the token has no structure scan yet (POST /structure/{token}, or watch it for a daily scan)')
  if (x && x.smartHolders === null) notAvailable.push('smart_holders: the token has no structure scan yet (the smart-holder count is that of its latest scan)')
  return {
    lp: x?.lp ? { providers: x.lp.providers, deployer_share: x.lp.deployerShare, insider_share: x.lp.insiderShare } : null,
    insider_share_now: x?.insiderShareNow ?? null,
    measured_callers: x?.measuredCallers ? { count: x.measuredCallers.count, best_grade: x.measuredCallers.bestGrade } : null,
    structure: x?.structure ?? null,
    smart_holders: x?.smartHolders ?? null,
    not_available: notAvailable,
  }
}
