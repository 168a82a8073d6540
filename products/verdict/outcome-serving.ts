import { z } from 'zod'
import { queryRows } from '../../core/clickhouse.ts'
import {
  BASKET_HORIZONS, BASKET_SIGNAL, LATE_AFTER_SECONDS, equityCurve, returnFigures, share,
  type EquityPoint, type HorizonName, type RecordedMark, type RecordedVerdict, type ReturnStats,
} from './basket.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { iso } from '../social/caller-view.ts'

type Deps = Pick<ApiDeps, 'ch' | 'cache' | 'watermarks' | 'tokens'>

/**
 * /basket and /proof.json from what migration 026 keeps as verdicts and marks are recorded
 * (products/verdict/launch-verdicts.ts): outcome_rollup (counts, launch windows and returns per
 * signal, horizon, launch day, lateness and pricing), basket_closes (the 24 h closes of the
 * basket, one per equity point) and, for the newest members only, launch_verdicts and
 * launch_marks read by key. Read once per served batch (cached per watermark); the rules are
 * products/verdict/basket.ts.
 */
function perBatch<T>(deps: Deps, name: string, load: (chain: number) => Promise<T>): Promise<T> {
  const chain = deps.tokens.chainId
  return deps.tokens.sync().then(() => deps.cache.get(`${name}:${chain}`, deps.watermarks.version(chain), () => load(chain)))
}

interface RollupCell {
  signal: string
  horizon: '' | HorizonName
  late: boolean
  priced: boolean
  n: number
  first: number
  last: number
  real: number
  dead: number
}

/**
 * Returns of on-time verdicts' marks per signal and horizon, all of them and those of priced
 * verdicts; only what an answer uses (every horizon of the basket's signal, 24 h of the others).
 */
interface OnTimeReturns {
  all: ReturnStats
  priced: ReturnStats
}

const NO_RETURNS: ReturnStats = { n: 0, positive: 0, low: 0, high: 0 }

interface Rollup {
  cells: RollupCell[]
  /** By `signal:horizon` (a plain object: cached answers may go through JSON). */
  returns: Record<string, OnTimeReturns>
}

const returnsKey = (signal: string, horizon: HorizonName) => `${signal}:${horizon}`

/** The rollup summed over launch days: a few rows per signal; the returns' middle values in SQL. */
function rollup(deps: Deps): Promise<Rollup> {
  return perBatch(deps, 'outcome-rollup', async (chain) => {
    const [cells, returns] = await Promise.all([
      queryRows<{ signal: string; horizon: '' | HorizonName; late: number; priced: number; n: string; first: string; last: string; real: string; dead: string }>(
        deps.ch,
        `SELECT signal, horizon, late, priced, sum(n) AS n, toUnixTimestamp(min(first_launch)) AS first, toUnixTimestamp(max(last_launch)) AS last,
                sum(real_marks) AS real, sum(dead_marks) AS dead
         FROM outcome_rollup WHERE chain_id = {chain:UInt32} GROUP BY signal, horizon, late, priced`,
        { chain },
      ),
      queryRows<{ signal: string; horizon: HorizonName; n: string; up: string; lo: number; hi: number; pn: string; pup: string; plo: number; phi: number }>(
        deps.ch,
        `SELECT signal, horizon, count() AS n, countIf(r > 0) AS up, quantileExactLow(0.5)(r) AS lo, quantileExactHigh(0.5)(r) AS hi,
                countIf(priced = 1) AS pn, countIf(r > 0 AND priced = 1) AS pup,
                quantileExactLowIf(0.5)(r, priced = 1) AS plo, quantileExactHighIf(0.5)(r, priced = 1) AS phi
         FROM (SELECT signal, horizon, priced, groupArrayMerge(returns) AS rs FROM outcome_rollup
               WHERE chain_id = {chain:UInt32} AND late = 0 AND (horizon = '24h' OR signal = {basket:String} AND horizon != '') GROUP BY signal, horizon, priced)
         ARRAY JOIN rs AS r
         GROUP BY signal, horizon`,
        { chain, basket: BASKET_SIGNAL },
      ),
    ])
    return {
      cells: cells.map((c) => ({
        signal: c.signal, horizon: c.horizon, late: Number(c.late) === 1, priced: Number(c.priced) === 1,
        n: Number(c.n), first: Number(c.first), last: Number(c.last), real: Number(c.real), dead: Number(c.dead),
      })),
      returns: Object.fromEntries(returns.map((r) => [returnsKey(r.signal, r.horizon), {
        all: { n: Number(r.n), positive: Number(r.up), low: Number(r.lo), high: Number(r.hi) },
        priced: { n: Number(r.pn), positive: Number(r.pup), low: Number(r.plo), high: Number(r.phi) },
      }])),
    }
  })
}

function total(cells: RollupCell[], pick: (c: RollupCell) => boolean): { n: number; real: number; dead: number; window: z.infer<typeof LaunchWindow> } {
  const cs = cells.filter((c) => pick(c) && c.n > 0)
  return {
    n: cs.reduce((a, c) => a + c.n, 0),
    real: cs.reduce((a, c) => a + c.real, 0),
    dead: cs.reduce((a, c) => a + c.dead, 0),
    window: cs.length
      ? { launched_from: iso(Math.min(...cs.map((c) => c.first))), launched_to: iso(Math.max(...cs.map((c) => c.last))) }
      : { launched_from: null, launched_to: null },
  }
}

/** The launch times of the first and last recorded verdicts an answer counts (chain clock). */
export const LaunchWindow = z.object({ launched_from: z.string().nullable(), launched_to: z.string().nullable() })

export interface BasketFigures {
  /** The newest members (newest launch first), at most `limit`, with their marks. */
  members: Array<RecordedVerdict & { marks: Partial<Record<HorizonName, RecordedMark>> }>
  membersTotal: number
  late: number
  unpriced: number
  perHorizon: Record<HorizonName, ReturnType<typeof returnFigures>>
  equity: EquityPoint[]
  window: z.infer<typeof LaunchWindow>
}

/** The newest `limit` members: launch_verdicts read newest first on its key, their marks by key. */
async function newestMembers(deps: Deps, chain: number, limit: number): Promise<BasketFigures['members']> {
  const rows = await queryRows<{ token: string; symbol: string; confidence: number; at: string; taken_block: string; taken_at: string; lag: number; price: string; qb: string }>(
    deps.ch,
    `SELECT token, symbol, confidence, toUnixTimestamp(launched_at) AS at, taken_block, toUnixTimestamp(taken_at) AS taken_at, lag_seconds AS lag,
            entry_price_weth AS price, entry_quote_block AS qb
     FROM launch_verdicts
     WHERE chain_id = {chain:UInt32} AND signal = {signal:String} AND lag_seconds <= {late:UInt32} AND quoted = 1
     ORDER BY launched_at DESC, token DESC, taken_block LIMIT 1 BY token LIMIT {limit:UInt32}`,
    { chain, signal: BASKET_SIGNAL, late: LATE_AFTER_SECONDS, limit },
  )
  if (rows.length === 0) return []
  const marks = await queryRows<{ token: string; horizon: HorizonName; marked_block: string; marked_at: string; quoted: number; price: string; ret: number | null; is_real: number; dead: string }>(
    deps.ch,
    `SELECT token, horizon, marked_block, toUnixTimestamp(marked_at) AS marked_at, quoted, price_weth AS price, forward_return AS ret, is_real, dead
     FROM launch_marks
     WHERE chain_id = {chain:UInt32} AND horizon IN {horizons:Array(String)}
       AND launched_at >= toDateTime({from:UInt32}) AND launched_at <= toDateTime({to:UInt32}) AND token IN {tokens:Array(String)}
     ORDER BY horizon, launched_at, token, marked_block LIMIT 1 BY horizon, token`,
    { chain, horizons: BASKET_HORIZONS.map((h) => h.name), from: Number(rows[rows.length - 1]!.at), to: Number(rows[0]!.at), tokens: rows.map((r) => r.token) },
  )
  const byToken = new Map<string, Partial<Record<HorizonName, RecordedMark>>>()
  for (const m of marks) {
    const e = byToken.get(m.token) ?? {}
    e[m.horizon] = {
      token: m.token, horizon: m.horizon, markedBlock: Number(m.marked_block), markedAt: Number(m.marked_at), price: Number(m.quoted) ? m.price : null,
      return: m.ret === null ? null : Number(m.ret), isReal: Number(m.is_real) === 1, dead: m.dead || null,
    }
    byToken.set(m.token, e)
  }
  return rows.map((v) => ({
    token: v.token, symbol: v.symbol, signal: BASKET_SIGNAL, confidence: Number(v.confidence), launchedAt: Number(v.at), takenBlock: Number(v.taken_block),
    takenAt: Number(v.taken_at), lagSeconds: Number(v.lag), entryPrice: v.price, entryBlock: Number(v.qb), marks: byToken.get(v.token) ?? {},
  }))
}

/** The paper basket: counts and returns from the rollup, the equity curve from its closes, the newest members by key. */
export function basketFigures(deps: Deps, limit: number): Promise<BasketFigures> {
  return perBatch(deps, 'basket', async (chain) => {
    const [r, members, closes] = await Promise.all([
      rollup(deps),
      newestMembers(deps, chain, limit),
      queryRows<{ at: string; block: string; ret: number }>(
        deps.ch,
        `SELECT toUnixTimestamp(marked_at) AS at, marked_block AS block, return_24h AS ret
         FROM basket_closes WHERE chain_id = {chain:UInt32} ORDER BY marked_at, marked_block, launched_at, token`,
        { chain },
      ),
    ])
    const verdicts = r.cells.filter((c) => c.signal === BASKET_SIGNAL && c.horizon === '')
    const member = total(verdicts, (c) => !c.late && c.priced)
    const perHorizon = {} as BasketFigures['perHorizon']
    for (const h of BASKET_HORIZONS) perHorizon[h.name] = returnFigures(r.returns[returnsKey(BASKET_SIGNAL, h.name)]?.priced ?? NO_RETURNS)
    return {
      members,
      membersTotal: member.n,
      late: total(verdicts, (c) => c.late).n,
      unpriced: total(verdicts, (c) => !c.late && !c.priced).n,
      perHorizon,
      equity: equityCurve(closes.map((c) => ({ markedAt: Number(c.at), markedBlock: Number(c.block), return: Number(c.ret) }))),
      window: member.window,
    }
  })
}

export interface ProofRow {
  signal: string
  tokens: number
  marked_7d: number
  became_real_share: number | null
  dead_within_7d_share: number | null
  marked_24h_with_return: number
  median_return_24h: number | null
}

/**
 * Per verdict signal, over on-time recorded verdicts: how many tokens; of those with a 7 d mark,
 * the share real and the share dead at it; the median 24 h return over those with a 24 h return.
 */
export function proofFigures(deps: Deps, signals: readonly string[]): Promise<{ rows: ProofRow[]; late: number; window: z.infer<typeof LaunchWindow> }> {
  return perBatch(deps, 'proof', async () => {
    const { cells, returns } = await rollup(deps)
    const rows = signals.map((signal) => {
      const m7 = total(cells, (c) => c.signal === signal && c.horizon === '7d' && !c.late)
      const r24 = returnFigures(returns[returnsKey(signal, '24h')]?.all ?? NO_RETURNS)
      return {
        signal,
        tokens: total(cells, (c) => c.signal === signal && c.horizon === '' && !c.late).n,
        marked_7d: m7.n,
        became_real_share: share(m7.real, m7.n),
        dead_within_7d_share: share(m7.dead, m7.n),
        marked_24h_with_return: r24.marked,
        median_return_24h: r24.median_return,
      }
    })
    return { rows, late: total(cells, (c) => c.horizon === '' && c.late).n, window: total(cells, (c) => c.horizon === '' && !c.late).window }
  })
}
