import { z } from 'zod'
import { INSIDER_PREP_MIN_RECIPIENTS, SCORE_BAND_NAMES } from '../../core/domain/deployer-score.ts'
import { REAL_DEAD_IN_WORDS as W } from '../../core/domain/real-token.ts'
import { VERDICT_REASON_CODES, VERDICT_SIGNALS, verdict, verdictOfUntracked, type VerdictInputs } from '../../core/domain/verdict.ts'
import { BlockNumber, Wei } from '../catalog/schemas.ts'
import type { DeployerHistory, DeployerRecord } from '../../core/records/deployer-state.ts'
import type { TokenRecord } from '../../core/records/token-state.ts'
import { LAUNCH_HISTORY_LIMIT } from './token-serving.ts'

/**
 * JSON views of book records, shared by every endpoint that shows a token or a deployer, with
 * the zod schemas that document them.
 */
export const PriceView = z.object({
  pool: z.string(),
  price_weth: z.string().meta({ description: 'WETH per whole token at the latest swap (decimal string)' }),
  fdv_weth_wei: Wei.meta({ description: 'fully diluted value: supply × price, in WETH wei' }),
  eth_usd: z.number().nullable().meta({ description: 'ETH/USD close of the minute the quote was observed in' }),
  fdv_usd: z.number().nullable(),
  observed_at: z.string().meta({ description: 'block time of the swap the quote comes from' }),
  observed_block: BlockNumber,
})

export const TokenView = z.object({
  token: z.string(),
  found: z.boolean(),
  name: z.string().nullable(),
  symbol: z.string().nullable(),
  decimals: z.number().int().nullable(),
  deployer: z.string().nullable().meta({ description: 'from of the transaction that created the contract' }),
  created_block: BlockNumber.nullable(),
  created_at: z.string().nullable(),
  launch: z.object({ pool: z.string(), protocol: z.string(), block: BlockNumber, launched_at: z.string() }).nullable().meta({ description: "the token's first WETH pool" }),
  swaps: z.number().int().meta({ description: 'swap events against WETH pools' }),
  weth_volume_wei: Wei.meta({ description: 'WETH in plus WETH out over all swaps, exact wei' }),
  unique_traders: z.number().int().meta({ description: 'distinct transaction senders of swaps' }),
  first_swap_block: BlockNumber.nullable(),
  last_swap_block: BlockNumber.nullable(),
  last_swap_at: z.string().nullable(),
  is_real: z.boolean().meta({ description: `>= ${W.swaps} swaps, >= ${W.traders} traders and >= ${W.weth} WETH volume, reached once` }),
  real_block: BlockNumber.nullable().meta({ description: 'the block in which the token became real' }),
  real_at: z.string().nullable(),
  dead: z.boolean(),
  dead_reason: z.enum(['idle_72h', 'liquidity_removed']).nullable(),
  price: PriceView.nullable(),
  deployer_score: z.number().int().nullable(),
  deployer_band: z.string().nullable(),
})

export function priceView(t: TokenRecord): z.infer<typeof PriceView> | null {
  const q = t.quote
  if (!q) return null
  return { pool: q.pool, price_weth: q.priceWeth, fdv_weth_wei: q.fdvWethWei.toString(), eth_usd: q.ethUsd, fdv_usd: q.fdvUsd, observed_at: q.observedAt, observed_block: q.observedBlock }
}

/** A token's view; `d` is its deployer's record. */
export function tokenView(address: string, t: TokenRecord | undefined, d: DeployerRecord | undefined): z.infer<typeof TokenView> {
  return {
    token: address,
    found: Boolean(t),
    name: t?.name || null,
    symbol: t?.symbol || null,
    decimals: t?.decimals ?? null,
    deployer: t?.deployer ?? null,
    created_block: t?.createdBlock ?? null,
    created_at: t?.createdAt ?? null,
    launch: t?.launch ? { pool: t.launch.pool, protocol: t.launch.protocol, block: t.launch.block, launched_at: t.launch.launchedAt } : null,
    swaps: t?.swaps ?? 0,
    weth_volume_wei: (t?.wethVolumeWei ?? 0n).toString(),
    unique_traders: t?.traders ?? 0,
    first_swap_block: t?.firstSwapBlock ?? null,
    last_swap_block: t?.lastSwapBlock ?? null,
    last_swap_at: t?.lastSwapAt ?? null,
    is_real: t?.realBlock != null,
    real_block: t?.realBlock ?? null,
    real_at: t?.realAt ?? null,
    dead: Boolean(t?.dead),
    dead_reason: t?.dead ?? null,
    price: t ? priceView(t) : null,
    deployer_score: d?.score ?? null,
    deployer_band: d?.band ?? null,
  }
}

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
  dead_reason: z.enum(['idle_72h', 'liquidity_removed']).nullable(),
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

/** The verdict's inputs: the token's record and its deployer's record (whose counts include this token). */
export function verdictInputs(t: TokenRecord, d: DeployerRecord | undefined): VerdictInputs {
  const own = t.launch !== null && d !== undefined && t.deployer === d.deployer
  return {
    launched: t.launch !== null,
    swaps: t.swaps,
    traders: t.traders,
    wethVolumeWei: t.wethVolumeWei,
    realBlock: t.realBlock,
    dead: t.dead,
    lastActivityAt: t.lastSwapAt ?? t.launch?.launchedAt ?? null,
    liquidityAdded: t.liquidityAdded,
    liquidityRemoved: t.liquidityRemoved,
    insiderPrep: t.insiderPrep,
    deployer: t.deployer
      ? {
          score: d?.score ?? null,
          band: d?.band ?? null,
          otherLaunched: Math.max(0, (d?.launched ?? 0) - (own ? 1 : 0)),
          otherDead: Math.max(0, (d?.dead ?? 0) - (own && t.dead ? 1 : 0)),
          otherInsiderPrep: (d?.insiderPrepLaunches ?? 0) - (own && t.insiderPrep ? 1 : 0) > 0,
        }
      : null,
  }
}

export function verdictView(t: TokenRecord | undefined, d: DeployerRecord | undefined): z.infer<typeof VerdictView> {
  if (!t) return verdictOfUntracked()
  return verdict(verdictInputs(t, d))
}
