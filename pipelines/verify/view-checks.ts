import { arcActivityByBlockCheck, arcActivityCheck, arcVenueStatsCheck } from './arc-activity-check.ts'
import { callerStatsCheck } from './caller-stats-check.ts'
import { chainBlocksCheck } from './chain-blocks-check.ts'
import { chainTotalsCheck } from './chain-totals-check.ts'
import { deployerStateCheck } from './deployer-state-check.ts'
import { fifoHoldCountsCheck } from './fifo-hold-counts-check.ts'
import { fifoSellsCheck } from './fifo-sells-check.ts'
import { fifoStateCheck } from './fifo-state-check.ts'
import { holderBalancesCheck } from './holder-balances-check.ts'
import { mentionHourlyCheck, mentionMinuteCheck } from './mention-velocity-check.ts'
import { solanaFifoCheck } from './solana-fifo-check.ts'
import { tokenStateCheck } from './token-state-check.ts'
import type { ViewCheck } from '../../core/records/verify-report.ts'

/** Every audited view, in the order a report lists them. */
export const VIEW_CHECKS: ViewCheck[] = [
  fifoStateCheck, fifoSellsCheck, fifoHoldCountsCheck,
  holderBalancesCheck, tokenStateCheck, deployerStateCheck, chainTotalsCheck, chainBlocksCheck,
  mentionHourlyCheck, mentionMinuteCheck, callerStatsCheck,
  solanaFifoCheck,
  arcActivityCheck, arcActivityByBlockCheck, arcVenueStatsCheck,
]

