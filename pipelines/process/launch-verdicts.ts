import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { chunks } from '../../core/chunks.ts'
import { BASKET_HORIZONS, VERDICT_DELAY_SECONDS, forwardReturn } from '../../core/domain/basket.ts'
import { verdict } from '../../core/domain/verdict.ts'
import { DEPLOYER_STATE_COLUMNS, deployerRecordOfRow, type DeployerRecord, type DeployerStateRow } from '../../core/records/deployer-state.ts'
import { TOKEN_STATE_COLUMNS, tokenRecordOf, type TokenRecord, type TokenStateRow } from '../../core/records/token-state.ts'
import { verdictInputs } from '../../core/records/verdict-inputs.ts'

/**
 * The +15 min verdicts and their forward marks (issue 13: /basket, /proof.json), taken by the
 * chain processor after each served batch, as chain time passes them:
 *  - a launch's verdict is taken once, in the first batch whose chain time reaches launch +
 *    15 min, from the serving state of that batch, and recorded (launch_verdicts); it is never
 *    recomputed;
 *  - each recorded verdict is marked at +1 h, +24 h and +7 d after its due time, once, in the
 *    first batch whose chain time reaches it (launch_marks).
 * Work per batch is proportional to the launches falling due: the candidates are a range read on
 * launches_by_time / launch_verdicts (ordered by launch time) from the last recorded launch time,
 * and their records are read by key. A reorg deletes what was taken at orphaned blocks
 * (chain-rollback.ts); the next batch takes it again.
 */

const KEYS_PER_QUERY = 2_000

export interface TakenAt {
  block: number
  /** Unix seconds of that block. */
  chainTime: number
}

interface DueLaunch {
  token: string
  /** Unix seconds. */
  at: number
}

/** Launches from the newest recorded launch time on, due by `through`, that are not recorded yet. */
async function dueLaunches(ch: ClickHouseClient, chainId: number, through: number): Promise<DueLaunch[]> {
  const p = { chain: chainId, through }
  const [last] = await queryRows<{ at: string }>(
    ch,
    'SELECT toUnixTimestamp(launched_at) AS at FROM launch_verdicts WHERE chain_id = {chain:UInt32} ORDER BY launched_at DESC LIMIT 1',
    p,
  )
  const from = Number(last?.at ?? 0)
  return queryRows<DueLaunch>(
    ch,
    `SELECT DISTINCT token, toUnixTimestamp(launched_at) AS at FROM launches_by_time
     WHERE chain_id = {chain:UInt32} AND launched_at >= toDateTime({from:UInt32}) AND launched_at <= toDateTime({through:UInt32})
       AND (launched_at > toDateTime({from:UInt32}) OR token NOT IN (
         SELECT token FROM launch_verdicts WHERE chain_id = {chain:UInt32} AND launched_at = toDateTime({from:UInt32})))
     ORDER BY at, token`,
    { ...p, from },
  ).then((rows) => rows.map((r) => ({ ...r, at: Number(r.at) })))
}

async function tokenRecords(ch: ClickHouseClient, chainId: number, tokens: string[], chainTime: number): Promise<Map<string, { record: TokenRecord; row: TokenStateRow }>> {
  const out = new Map<string, { record: TokenRecord; row: TokenStateRow }>()
  for (const part of chunks(tokens, KEYS_PER_QUERY)) {
    const rows = await queryRows<TokenStateRow>(
      ch,
      `SELECT ${TOKEN_STATE_COLUMNS} FROM token_state WHERE chain_id = {chain:UInt32} AND token IN {keys:Array(String)} ORDER BY token, version DESC LIMIT 1 BY token`,
      { chain: chainId, keys: part },
    )
    for (const r of rows) {
      const record = tokenRecordOf(r, chainTime)
      if (record) out.set(record.token, { record, row: r })
    }
  }
  return out
}

async function deployerRecords(ch: ClickHouseClient, chainId: number, deployers: string[]): Promise<Map<string, DeployerRecord>> {
  const out = new Map<string, DeployerRecord>()
  for (const part of chunks([...new Set(deployers)], KEYS_PER_QUERY)) {
    const rows = await queryRows<DeployerStateRow>(
      ch,
      `SELECT ${DEPLOYER_STATE_COLUMNS} FROM deployer_state WHERE chain_id = {chain:UInt32} AND deployer IN {keys:Array(String)} ORDER BY deployer, version DESC LIMIT 1 BY deployer`,
      { chain: chainId, keys: part },
    )
    for (const r of rows) {
      const d = deployerRecordOfRow(r)
      if (d) out.set(d.deployer, d)
    }
  }
  return out
}

/** The latest quote of a token as raw amounts (WETH wei, token base units) with its price and block. */
function quoteOf(e: { record: TokenRecord; row: TokenStateRow } | undefined): { weth: bigint; token: bigint; price: string; block: number } | null {
  if (!e?.record.quote) return null
  return { weth: BigInt(e.row.quote[0]), token: BigInt(e.row.quote[1]), price: e.record.quote.priceWeth, block: e.record.quote.observedBlock }
}

/** Record the verdicts of the launches due by the served batch `at`; returns how many. */
export async function recordLaunchVerdicts(ch: ClickHouseClient, chainId: number, at: TakenAt): Promise<number> {
  const due = await dueLaunches(ch, chainId, at.chainTime - VERDICT_DELAY_SECONDS)
  if (due.length === 0) return 0
  const tokens = await tokenRecords(ch, chainId, due.map((d) => d.token), at.chainTime)
  const deployers = await deployerRecords(ch, chainId, [...tokens.values()].map((e) => e.record.deployer ?? '').filter(Boolean))
  const rows = due.flatMap((d) => {
    const e = tokens.get(d.token)
    const t = e?.record
    if (!t?.launch) return []
    const v = verdict(verdictInputs(t, t.deployer ? deployers.get(t.deployer) : undefined))
    const q = quoteOf(e)
    const dueAt = d.at + VERDICT_DELAY_SECONDS
    return [{
      chain_id: chainId, launched_at: d.at, token: t.token, symbol: t.symbol, deployer: t.deployer ?? '', launch_block: t.launch.block,
      due_at: dueAt, taken_block: at.block, taken_at: at.chainTime, lag_seconds: Math.max(0, at.chainTime - dueAt),
      signal: v.signal, confidence: v.confidence, reasons: JSON.stringify(v.reasons),
      quoted: q ? 1 : 0, entry_weth: (q?.weth ?? 0n).toString(), entry_token: (q?.token ?? 0n).toString(), entry_price_weth: q?.price ?? '',
      entry_quote_block: q?.block ?? 0, decimals: t.decimals ?? 18,
    }]
  })
  if (rows.length === 0) return 0
  await ch.insert({
    table: 'launch_verdicts', values: rows, format: 'JSONEachRow',
    clickhouse_settings: { insert_deduplication_token: `launch-verdicts:${chainId}:${at.block}:${rows[0]!.token}:${rows.length}` },
  })
  return rows.length
}

/** Record the marks at `horizon` of the recorded verdicts due by the served batch `at`. */
async function recordMarks(ch: ClickHouseClient, chainId: number, horizon: (typeof BASKET_HORIZONS)[number], at: TakenAt): Promise<number> {
  const p = { chain: chainId, h: horizon.name }
  const [last] = await queryRows<{ at: string }>(
    ch,
    'SELECT toUnixTimestamp(launched_at) AS at FROM launch_marks WHERE chain_id = {chain:UInt32} AND horizon = {h:String} ORDER BY launched_at DESC LIMIT 1',
    p,
  )
  const from = Number(last?.at ?? 0)
  const due = await queryRows<{ token: string; at: string; due_at: string; signal: string; entry_weth: string; entry_token: string; quoted: number }>(
    ch,
    `SELECT token, toUnixTimestamp(launched_at) AS at, toUnixTimestamp(due_at) AS due_at, signal, entry_weth, entry_token, quoted FROM launch_verdicts
     WHERE chain_id = {chain:UInt32} AND launched_at >= toDateTime({from:UInt32}) AND launched_at <= toDateTime({through:UInt32})
       AND (launched_at > toDateTime({from:UInt32}) OR token NOT IN (
         SELECT token FROM launch_marks WHERE chain_id = {chain:UInt32} AND horizon = {h:String} AND launched_at = toDateTime({from:UInt32})))
     ORDER BY launched_at, token, taken_block LIMIT 1 BY token`,
    { ...p, from, through: at.chainTime - VERDICT_DELAY_SECONDS - horizon.seconds },
  )
  if (due.length === 0) return 0
  const tokens = await tokenRecords(ch, chainId, due.map((d) => d.token), at.chainTime)
  const rows = due.map((d) => {
    const e = tokens.get(d.token)
    const t = e?.record
    const q = quoteOf(e)
    const entry = Number(d.quoted) ? { weth: BigInt(d.entry_weth), token: BigInt(d.entry_token) } : null
    return {
      chain_id: chainId, horizon: horizon.name, launched_at: Number(d.at), token: d.token, signal: d.signal,
      due_at: Number(d.due_at) + horizon.seconds, marked_block: at.block, marked_at: at.chainTime,
      quoted: q ? 1 : 0, mark_weth: (q?.weth ?? 0n).toString(), mark_token: (q?.token ?? 0n).toString(), price_weth: q?.price ?? '',
      forward_return: forwardReturn(entry, q),
      is_real: t?.realBlock != null ? 1 : 0, dead: t?.dead ?? '',
    }
  })
  await ch.insert({
    table: 'launch_marks', values: rows, format: 'JSONEachRow',
    clickhouse_settings: { insert_deduplication_token: `launch-marks:${chainId}:${horizon.name}:${at.block}:${rows[0]!.token}:${rows.length}` },
  })
  return rows.length
}

/** The step the chain processor runs after each served batch: verdicts falling due, then marks. */
export async function recordLaunchOutcomes(ch: ClickHouseClient, chainId: number, at: TakenAt): Promise<{ verdicts: number; marks: number }> {
  const verdicts = await recordLaunchVerdicts(ch, chainId, at)
  let marks = 0
  for (const h of BASKET_HORIZONS) marks += await recordMarks(ch, chainId, h, at)
  return { verdicts, marks }
}
