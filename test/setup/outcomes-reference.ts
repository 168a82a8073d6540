import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import {
  BASKET_HORIZONS, BASKET_SIGNAL, equityCurve, hitRate, isLate, median, share,
  type EquityPoint, type HorizonName, type RecordedMark, type RecordedVerdict,
} from '../../products/verdict/basket.ts'
import { VERDICT_SIGNALS } from '../../products/verdict/verdict.ts'
import type { ProofRow } from '../../products/verdict/outcome-serving.ts'
import { iso } from '../../products/social/caller-view.ts'

/**
 * The reference for /basket and /proof.json: the figures recomputed in Node from every recorded
 * verdict and mark (the path the service took before migration 026's aggregates), with the rules
 * of products/verdict/basket.ts. Tests check the served answers equal it; bench/outcomes.ts measures
 * it as the baseline.
 */

/** Every recorded verdict and mark of the chain (launch_verdicts, launch_marks), in launch order. */
export async function readRecordedOutcomes(ch: ClickHouseClient, chain: number): Promise<{ verdicts: RecordedVerdict[]; marks: RecordedMark[] }> {
  const [verdicts, marks] = await Promise.all([
    queryRows<{ token: string; symbol: string; signal: string; confidence: number; at: string; taken_block: string; taken_at: string; lag: number; quoted: number; price: string; qb: string }>(
      ch,
      `SELECT token, symbol, signal, confidence, toUnixTimestamp(launched_at) AS at, taken_block, toUnixTimestamp(taken_at) AS taken_at, lag_seconds AS lag,
              quoted, entry_price_weth AS price, entry_quote_block AS qb
       FROM launch_verdicts WHERE chain_id = {chain:UInt32} ORDER BY launched_at, token, taken_block LIMIT 1 BY token`,
      { chain },
    ),
    queryRows<{ token: string; horizon: HorizonName; marked_block: string; marked_at: string; quoted: number; price: string; ret: number | null; is_real: number; dead: string }>(
      ch,
      `SELECT token, horizon, marked_block, toUnixTimestamp(marked_at) AS marked_at, quoted, price_weth AS price, forward_return AS ret, is_real, dead
       FROM launch_marks WHERE chain_id = {chain:UInt32} ORDER BY horizon, launched_at, token, marked_block LIMIT 1 BY horizon, token`,
      { chain },
    ),
  ])
  return {
    verdicts: verdicts.map((v) => ({
      token: v.token, symbol: v.symbol, signal: v.signal, confidence: Number(v.confidence), launchedAt: Number(v.at), takenBlock: Number(v.taken_block),
      takenAt: Number(v.taken_at), lagSeconds: Number(v.lag), entryPrice: Number(v.quoted) ? v.price : null, entryBlock: Number(v.quoted) ? Number(v.qb) : null,
    })),
    marks: marks.map((m) => ({
      token: m.token, horizon: m.horizon, markedBlock: Number(m.marked_block), markedAt: Number(m.marked_at), price: Number(m.quoted) ? m.price : null,
      return: m.ret === null ? null : Number(m.ret), isReal: Boolean(Number(m.is_real)), dead: m.dead || null,
    })),
  }
}

/** Marks by token and horizon. */
export function marksByToken(marks: RecordedMark[]): Map<string, Partial<Record<HorizonName, RecordedMark>>> {
  const out = new Map<string, Partial<Record<HorizonName, RecordedMark>>>()
  for (const m of marks) {
    const e = out.get(m.token) ?? {}
    e[m.horizon] ??= m
    out.set(m.token, e)
  }
  return out
}

export interface BasketSummary {
  members: RecordedVerdict[]
  late: number
  unpriced: number
  perHorizon: Record<HorizonName, { marked: number; hit_rate: number | null; median_return: number | null }>
  equity: EquityPoint[]
}

/** The paper basket from the recorded verdicts and marks: on-time low_risk verdicts with an entry price. */
export function basketOf(verdicts: RecordedVerdict[], marks: RecordedMark[]): BasketSummary {
  const low = verdicts.filter((v) => v.signal === BASKET_SIGNAL)
  const onTime = low.filter((v) => !isLate(v))
  const members = onTime.filter((v) => v.entryPrice !== null)
  const byToken = marksByToken(marks)
  const perHorizon = {} as BasketSummary['perHorizon']
  for (const h of BASKET_HORIZONS) {
    const rs = members.map((v) => byToken.get(v.token)?.[h.name]?.return).filter((r): r is number => r !== null && r !== undefined)
    perHorizon[h.name] = { marked: rs.length, hit_rate: hitRate(rs), median_return: median(rs) }
  }
  const closed = members.flatMap((v) => {
    const m = byToken.get(v.token)?.['24h']
    return m && m.return !== null ? [{ markedAt: m.markedAt, markedBlock: m.markedBlock, return: m.return }] : []
  })
  return { members, late: low.length - onTime.length, unpriced: onTime.length - members.length, perHorizon, equity: equityCurve(closed) }
}

/**
 * Per verdict signal, over on-time recorded verdicts: how many tokens; of those with a 7 d mark,
 * the share real and the share dead at it; the median 24 h return over those with a 24 h return.
 */
export function proofOf(verdicts: RecordedVerdict[], marks: RecordedMark[], signals: readonly string[]): { rows: ProofRow[]; late: number } {
  const byToken = marksByToken(marks)
  const onTime = verdicts.filter((v) => !isLate(v))
  const rows = signals.map((signal) => {
    const vs = onTime.filter((v) => v.signal === signal)
    const m7 = vs.map((v) => byToken.get(v.token)?.['7d']).filter((m): m is RecordedMark => m !== undefined)
    const r24 = vs.map((v) => byToken.get(v.token)?.['24h']?.return).filter((r): r is number => r !== null && r !== undefined)
    return {
      signal,
      tokens: vs.length,
      marked_7d: m7.length,
      became_real_share: share(m7.filter((m) => m.isReal).length, m7.length),
      dead_within_7d_share: share(m7.filter((m) => m.dead !== null).length, m7.length),
      marked_24h_with_return: r24.length,
      median_return_24h: median(r24),
    }
  })
  return { rows, late: verdicts.length - onTime.length }
}

function launchWindow(counted: RecordedVerdict[]) {
  return counted.length ? { launched_from: iso(counted[0]!.launchedAt), launched_to: iso(counted[counted.length - 1]!.launchedAt) } : { launched_from: null, launched_to: null }
}

const markView = (m: RecordedMark | undefined) =>
  m ? { marked_block: m.markedBlock, marked_at: iso(m.markedAt), price_weth: m.price, return: m.return, is_real: m.isReal, dead: m.dead } : null

/** `data` of GET /basket as the service answered it from the full recompute (newest 200 members). */
export function referenceBasketData(verdicts: RecordedVerdict[], marks: RecordedMark[], limit = 200) {
  const b = basketOf(verdicts, marks)
  const byToken = marksByToken(marks)
  return {
    members: [...b.members].reverse().slice(0, limit).map((v) => {
      const m = byToken.get(v.token)
      return {
        token: v.token, symbol: v.symbol || null, launched_at: iso(v.launchedAt), verdict_taken_block: v.takenBlock, verdict_taken_at: iso(v.takenAt),
        lag_seconds: v.lagSeconds, confidence: v.confidence, entry_price_weth: v.entryPrice!, entry_quote_block: v.entryBlock!,
        marks: { '1h': markView(m?.['1h']), '24h': markView(m?.['24h']), '7d': markView(m?.['7d']) },
      }
    }),
    members_total: b.members.length,
    truncated: b.members.length > limit,
    excluded: { late: b.late, unpriced: b.unpriced },
    horizons: b.perHorizon,
    equity_curve: b.equity.map((p) => ({ ...p, at: iso(p.at) })),
    window: launchWindow(b.members),
  }
}

/** `data` of GET /proof.json as the service answered it from the full recompute. */
export function referenceProofData(verdicts: RecordedVerdict[], marks: RecordedMark[]) {
  const p = proofOf(verdicts, marks, VERDICT_SIGNALS)
  return { signals: p.rows, late_excluded: p.late, window: launchWindow(verdicts.filter((v) => !isLate(v))) }
}
