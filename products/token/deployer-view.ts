import { z } from 'zod'
import { INSIDER_PREP_MIN_RECIPIENTS, SCORE_BAND_NAMES } from './deployer-score.ts'
import { DEAD_REASONS } from './token-status.ts'
import type { DeployerHistory, DeployerRecord } from './deployer-state.ts'
import type { TokenRecord } from './token-state.ts'
import { BlockNumber, Wei } from '../../core/endpoint/schemas.ts'
import { LAUNCH_HISTORY_LIMIT } from './token-serving.ts'

/**
 * The JSON views of a deployer record and of its launch history, shared by every endpoint that
 * shows a deployer, with the zod schemas that document them.
 */
export const LaunchSummary = z.object({
  token: z.string(),
  symbol: z.string().nullable(),
  name: z.string().nullable(),
  launch_block: BlockNumber,
  launched_at: z.string(),
  swaps: z.number().int(),
  weth_volume_wei: Wei,
  is_real: z.boolean(),
  real_block: BlockNumber.nullable(),
  dead: z.boolean(),
  dead_reason: z.enum(DEAD_REASONS).nullable(),
})

export function launchSummary(t: TokenRecord): z.infer<typeof LaunchSummary> {
  return {
    token: t.token,
    symbol: t.symbol || null,
    name: t.name || null,
    launch_block: t.launch!.block,
    launched_at: t.launch!.launchedAt,
    swaps: t.swaps,
    weth_volume_wei: t.wethVolumeWei.toString(),
    is_real: t.realBlock !== null,
    real_block: t.realBlock,
    dead: Boolean(t.dead),
    dead_reason: t.dead,
  }
}

export const DeployerView = z.object({
  deployer: z.string(),
  found: z.boolean().meta({ description: 'false: no launch by this address was measured (absence of a record)' }),
  launched: z.number().int().meta({ description: 'tokens created by the address that got a WETH pool' }),
  real: z.number().int(),
  dead: z.number().int(),
  best_token: z.object({ token: z.string(), symbol: z.string().nullable(), weth_volume_wei: Wei }).nullable(),
  insider_prep: z.boolean().meta({ description: `a launch whose deployer sent supply to ${INSIDER_PREP_MIN_RECIPIENTS}+ wallets before its pool existed` }),
  score: z.number().int().nullable().meta({ description: '0-100, formula in the description of this API' }),
  band: z.enum(SCORE_BAND_NAMES).nullable(),
})

export function deployerView(address: string, d: DeployerRecord | undefined): z.infer<typeof DeployerView> {
  return {
    deployer: address,
    found: Boolean(d),
    launched: d?.launched ?? 0,
    real: d?.real ?? 0,
    dead: d?.dead ?? 0,
    best_token: d?.best ? { token: d.best.token, symbol: d.best.symbol || null, weth_volume_wei: d.best.wethVolumeWei.toString() } : null,
    insider_prep: d?.insiderPrep ?? false,
    score: d?.score ?? null,
    band: d?.band ?? null,
  }
}

/** A deployer record with its launch history, as /deployer and /report show it. */
export const DeployerHistoryView = DeployerView.extend({
  launches: z.array(LaunchSummary).meta({ description: 'launches, newest first (at most 100)' }),
  launches_total: z.number().int(),
  launches_truncated: z.boolean(),
})

export function deployerHistoryView(address: string, d: DeployerHistory | undefined): z.infer<typeof DeployerHistoryView> {
  const launches = d?.launches ?? []
  const total = d?.launched ?? 0
  return {
    ...deployerView(address, d),
    launches: launches.slice(0, LAUNCH_HISTORY_LIMIT).map(launchSummary),
    launches_total: total,
    launches_truncated: total > LAUNCH_HISTORY_LIMIT,
  }
}
