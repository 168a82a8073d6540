import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { deployerScore, scoreBand, type ScoreBand } from './deployer-score.ts'
import { deadOf, insiderPrepOf, type TokenRecord, type TokenStateRow } from './token-state.ts'

/** A deployer's track record over its launched tokens: one row of `deployer_state`. */
export interface DeployerRecord {
  deployer: string
  launched: number
  real: number
  dead: number
  /** Launches whose deployer sent supply to wallets before the pool existed. */
  insiderPrepLaunches: number
  insiderPrep: boolean
  best: { token: string; symbol: string; wethVolumeWei: bigint } | null
  score: number | null
  band: ScoreBand | null
}

/** A deployer record with its launches, newest first (at most the number asked for). */
export interface DeployerHistory extends DeployerRecord {
  launches: TokenRecord[]
}

/**
 * What a deployer's record takes of one of its tokens: a dozen of token_state's 33 columns, so the
 * read of a batch's deployers' tokens (through projection by_deployer) reads only those.
 */
export const DEPLOYER_TOKEN_COLUMNS =
  'token, present, deployer, symbol, created, launched, is_real, weth_volume, prelaunch_recipients, last_activity, liquidity_added, liquidity_removed'

export type DeployerTokenRow = Pick<TokenStateRow,
  'token' | 'present' | 'deployer' | 'symbol' | 'created' | 'launched' | 'is_real' | 'weth_volume' | 'prelaunch_recipients' | 'last_activity' | 'liquidity_added' | 'liquidity_removed'>

/** A row of a deployer's token with its version (decimal), to tell the newest of a token's rows. */
export type VersionedDeployerTokenRow = DeployerTokenRow & { version: string }

/**
 * What a deployer's record takes of a token_state row made as values (token-state-values.ts), as
 * the read of the stored row would answer it: a field the row leaves out has the column's default.
 */
export function deployerTokenRowOfValues(v: Record<string, unknown>): VersionedDeployerTokenRow {
  const text = (x: unknown, empty: string) => (x === undefined || x === null ? empty : String(x))
  return {
    token: String(v.token),
    present: Number(v.present ?? 0),
    deployer: text(v.deployer, ''),
    symbol: text(v.symbol, ''),
    created: Number(v.created ?? 0),
    launched: Number(v.launched ?? 0),
    is_real: Number(v.is_real ?? 0),
    weth_volume: text(v.weth_volume, '0'),
    prelaunch_recipients: text(v.prelaunch_recipients, '0'),
    last_activity: Number(v.last_activity ?? 0),
    liquidity_added: text(v.liquidity_added, '0'),
    liquidity_removed: text(v.liquidity_removed, '0'),
    version: String(v.version),
  }
}

/** A launched token as its deployer's record counts it. */
export interface DeployerToken {
  token: string
  symbol: string
  real: boolean
  dead: boolean
  insiderPrep: boolean
  wethVolumeWei: bigint
}

/**
 * The launched token a row counts for its deployer at chain time `chainTime` (unix s); undefined
 * unless the row is present, launched and created (a tombstone, or a row whose creation a reorg
 * removed, names a deployer but counts for none).
 */
export function deployerTokenOf(r: DeployerTokenRow, chainTime: number): DeployerToken | undefined {
  if (!r.present || !r.created || !r.launched || r.deployer === '') return undefined
  return {
    token: r.token,
    symbol: r.symbol,
    real: Boolean(r.is_real),
    dead: deadOf(r, chainTime) !== null,
    insiderPrep: insiderPrepOf(r),
    wethVolumeWei: BigInt(r.weth_volume),
  }
}

/** The record of `deployer` from its launched tokens; undefined without launches. */
export function deployerRecordOf(deployer: string, tokens: Iterable<DeployerToken>): DeployerRecord | undefined {
  let launched = 0
  let real = 0
  let dead = 0
  let insiderPrepLaunches = 0
  let best: DeployerToken | null = null
  for (const t of tokens) {
    launched++
    if (t.real) real++
    if (t.dead) dead++
    if (t.insiderPrep) insiderPrepLaunches++
    if (!best || t.wethVolumeWei > best.wethVolumeWei) best = t
  }
  if (launched === 0) return undefined
  const insiderPrep = insiderPrepLaunches > 0
  const score = deployerScore({ launched, real, dead, bestVolumeWei: best?.wethVolumeWei ?? 0n, insiderPrep })
  return {
    deployer, launched, real, dead, insiderPrepLaunches, insiderPrep,
    best: best ? { token: best.token, symbol: best.symbol, wethVolumeWei: best.wethVolumeWei } : null,
    score, band: scoreBand(score),
  }
}

/** A `deployer_state` row as JSON. */
export interface DeployerStateRow {
  deployer: string
  launched: number
  real: number
  dead: number
  insider_prep_count: number
  best_token: string
  best_symbol: string
  best_volume: string
  score: number
  band: string
}

export const DEPLOYER_STATE_COLUMNS = 'deployer, launched, real, dead, insider_prep_count, best_token, best_symbol, best_volume, score, band'

/** The newest deployer_state row of each of `deployers` (LIMIT 1 BY deployer over the primary key). */
export function latestDeployerRows(ch: ClickHouseClient, chainId: number, deployers: string[]): Promise<DeployerStateRow[]> {
  return queryRows<DeployerStateRow>(
    ch,
    `SELECT ${DEPLOYER_STATE_COLUMNS} FROM deployer_state WHERE chain_id = {chain:UInt32} AND deployer IN {keys:Array(String)} ORDER BY deployer, version DESC LIMIT 1 BY deployer`,
    { chain: chainId, keys: deployers },
  )
}

/** The row stored for `deployer`; a deployer left without launches is stored with launched = 0. */
export function deployerStateRow(deployer: string, d: DeployerRecord | undefined): DeployerStateRow {
  return {
    deployer,
    launched: d?.launched ?? 0,
    real: d?.real ?? 0,
    dead: d?.dead ?? 0,
    insider_prep_count: d?.insiderPrepLaunches ?? 0,
    best_token: d?.best?.token ?? '',
    best_symbol: d?.best?.symbol ?? '',
    best_volume: (d?.best?.wethVolumeWei ?? 0n).toString(),
    score: d?.score ?? -1,
    band: d?.band ?? '',
  }
}

/** The record of a stored row; undefined for a deployer without launches. */
export function deployerRecordOfRow(r: DeployerStateRow): DeployerRecord | undefined {
  const launched = Number(r.launched)
  if (launched === 0) return undefined
  const score = Number(r.score)
  return {
    deployer: r.deployer,
    launched,
    real: Number(r.real),
    dead: Number(r.dead),
    insiderPrepLaunches: Number(r.insider_prep_count),
    insiderPrep: Number(r.insider_prep_count) > 0,
    best: r.best_token ? { token: r.best_token, symbol: r.best_symbol, wethVolumeWei: BigInt(r.best_volume) } : null,
    score: score < 0 ? null : score,
    band: (r.band || null) as ScoreBand | null,
  }
}
