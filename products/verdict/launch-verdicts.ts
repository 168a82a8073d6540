import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { chunks } from '../../core/chunks.ts'
import { BASKET_HORIZONS, VERDICT_DELAY_SECONDS, forwardReturn, isLateLag, type HorizonName } from './basket.ts'
import { verdict, type VerdictSignals } from './verdict.ts'
import { verdictSignalsOf } from './verdict-signals.ts'
import { deployerRecordOfRow, latestDeployerRows, type DeployerRecord } from '../token/deployer-state.ts'
import { latestTokenRows, tokenRecordOf, type TokenRecord, type TokenStateRow } from '../token/token-state.ts'
import { verdictInputs } from './verdict-inputs.ts'

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

async function tokenRecords(ch: ClickHouseClient, chainId: number, tokens: string[], chainTime: number): Promise<Map<string, { record: TokenRecord; row: TokenStateRow }>> {
  const out = new Map<string, { record: TokenRecord; row: TokenStateRow }>()
  for (const part of chunks(tokens, KEYS_PER_QUERY)) {
    for (const r of await latestTokenRows(ch, chainId, part)) {
      const record = tokenRecordOf(r, chainTime)
      if (record) out.set(record.token, { record, row: r })
    }
  }
  return out
}

async function deployerRecords(ch: ClickHouseClient, chainId: number, deployers: string[]): Promise<Map<string, DeployerRecord>> {
  const out = new Map<string, DeployerRecord>()
  for (const part of chunks([...new Set(deployers)], KEYS_PER_QUERY)) {
    for (const r of await latestDeployerRows(ch, chainId, part)) {
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

type Kind = 'verdict' | HorizonName

interface Due {
  kind: Kind
  token: string
  at: string
  due_at: string
  signal: string
  entry_weth: string
  entry_token: string
  quoted: number
  /** The recorded verdict's lag (marks only). */
  lag: number
}

const KINDS: Kind[] = ['verdict', ...BASKET_HORIZONS.map((h) => h.name)]
const horizonSeconds = (k: Kind) => (k === 'verdict' ? 0 : BASKET_HORIZONS.find((h) => h.name === k)!.seconds)

/**
 * Everything falling due in one round trip: per kind, the rows with a launch time in
 * [from, through] not recorded yet (only the ones at exactly `from` can be: the anti-join is a
 * keyed read of that one launch time). Verdicts come from launches_by_time, marks from the
 * recorded verdicts; both are range reads on their (chain, launch time) key. With them, per kind,
 * the launch time of its next candidate after `through` (the first row of the same range read;
 * Infinity when there is none yet): until chain time brings `through` to it, nothing can fall due.
 */
async function dueRows(ch: ClickHouseClient, chainId: number, from: Record<Kind, number>, chainTime: number): Promise<{ due: Due[]; next: Record<Kind, number> }> {
  const params: Record<string, unknown> = { chain: chainId }
  const parts = KINDS.map((k, i) => {
    params[`from${i}`] = from[k]
    params[`through${i}`] = throughOf(chainTime, k)
    const range = `chain_id = {chain:UInt32} AND launched_at >= toDateTime({from${i}:UInt32}) AND launched_at <= toDateTime({through${i}:UInt32})`
    const after = `chain_id = {chain:UInt32} AND launched_at > toDateTime({through${i}:UInt32})`
    const next = (table: string) => `SELECT 'next' AS kind, '${k}' AS token, toUnixTimestamp(launched_at) AS at, toUInt32(0) AS due_at, '' AS signal, toUInt256(0) AS entry_weth, toUInt256(0) AS entry_token, toUInt8(0) AS quoted, toUInt32(0) AS lag
        FROM (SELECT launched_at FROM ${table} WHERE ${after} ORDER BY launched_at LIMIT 1)`
    if (k === 'verdict') {
      return `SELECT DISTINCT 'verdict' AS kind, token, toUnixTimestamp(launched_at) AS at, toUInt32(0) AS due_at, '' AS signal, toUInt256(0) AS entry_weth, toUInt256(0) AS entry_token, toUInt8(0) AS quoted, toUInt32(0) AS lag
        FROM launches_by_time WHERE ${range} AND (launched_at > toDateTime({from${i}:UInt32}) OR token NOT IN (
          SELECT token FROM launch_verdicts WHERE chain_id = {chain:UInt32} AND launched_at = toDateTime({from${i}:UInt32})))
        UNION ALL ${next('launches_by_time')}`
    }
    return `SELECT '${k}' AS kind, token, toUnixTimestamp(launched_at) AS at, toUnixTimestamp(due_at) AS due_at, signal, entry_weth, entry_token, quoted, lag_seconds AS lag
      FROM (SELECT * FROM launch_verdicts WHERE ${range} ORDER BY launched_at, token, taken_block LIMIT 1 BY token)
      WHERE launched_at > toDateTime({from${i}:UInt32}) OR token NOT IN (
        SELECT token FROM launch_marks WHERE chain_id = {chain:UInt32} AND horizon = '${k}' AND launched_at = toDateTime({from${i}:UInt32}))
      UNION ALL ${next('launch_verdicts')}`
  })
  const rows = await queryRows<Due | (Omit<Due, 'kind'> & { kind: 'next' })>(ch, `SELECT * FROM (${parts.join('\nUNION ALL\n')}) ORDER BY kind, at, token`, params)
  const next = Object.fromEntries(KINDS.map((k) => [k, Number.POSITIVE_INFINITY])) as Record<Kind, number>
  for (const r of rows) if (r.kind === 'next') next[r.token as Kind] = Number(r.at)
  return { due: rows.filter((r): r is Due => r.kind !== 'next'), next }
}

/** The latest launch time of a kind's rows that chain time `chainTime` brings due. */
const throughOf = (chainTime: number, k: Kind) => Math.max(0, chainTime - VERDICT_DELAY_SECONDS - horizonSeconds(k))

/** The newest recorded launch time per kind: where a process (re)starts covering from. */
async function cursors(ch: ClickHouseClient, chainId: number): Promise<Record<Kind, number>> {
  const rows = await queryRows<{ kind: Kind; at: string }>(
    ch,
    `SELECT 'verdict' AS kind, toUnixTimestamp(max(launched_at)) AS at FROM launch_verdicts WHERE chain_id = {chain:UInt32}
     UNION ALL
     SELECT horizon AS kind, toUnixTimestamp(max(launched_at)) AS at FROM launch_marks WHERE chain_id = {chain:UInt32} GROUP BY horizon`,
    { chain: chainId },
  )
  const out = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>
  for (const r of rows) out[r.kind] = Number(r.at)
  return out
}

async function insertVerdicts(ch: ClickHouseClient, chainId: number, due: Due[], at: TakenAt): Promise<number> {
  const tokens = await tokenRecords(ch, chainId, due.map((d) => d.token), at.chainTime)
  const deployers = await deployerRecords(ch, chainId, [...tokens.values()].map((e) => e.record.deployer ?? '').filter(Boolean))
  // Every signal the verdict uses, read by key for the launches falling due (a few per batch).
  const signals = new Map<string, VerdictSignals>()
  for (const part of chunks([...tokens.values()].map((e) => e.record).filter((t) => t.launch), KEYS_PER_QUERY)) {
    for (const [k, v] of await verdictSignalsOf(ch, chainId, part)) signals.set(k, v)
  }
  const rows = due.flatMap((d) => {
    const e = tokens.get(d.token)
    const t = e?.record
    if (!t?.launch) return []
    const v = verdict(verdictInputs(t, t.deployer ? deployers.get(t.deployer) : undefined, signals.get(t.token)))
    const q = quoteOf(e)
    const dueAt = Number(d.at) + VERDICT_DELAY_SECONDS
    return [{
      chain_id: chainId, launched_at: Number(d.at), token: t.token, symbol: t.symbol, deployer: t.deployer ?? '', launch_block: t.launch.block,
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

async function insertMarks(ch: ClickHouseClient, chainId: number, horizon: HorizonName, due: Due[], at: TakenAt): Promise<number> {
  const tokens = await tokenRecords(ch, chainId, due.map((d) => d.token), at.chainTime)
  const rows = due.map((d) => {
    const e = tokens.get(d.token)
    const t = e?.record
    const q = quoteOf(e)
    const entry = Number(d.quoted) ? { weth: BigInt(d.entry_weth), token: BigInt(d.entry_token) } : null
    return {
      chain_id: chainId, horizon, launched_at: Number(d.at), token: d.token, signal: d.signal,
      due_at: Number(d.due_at) + horizonSeconds(horizon), marked_block: at.block, marked_at: at.chainTime,
      quoted: q ? 1 : 0, mark_weth: (q?.weth ?? 0n).toString(), mark_token: (q?.token ?? 0n).toString(), price_weth: q?.price ?? '',
      forward_return: forwardReturn(entry, q),
      is_real: t?.realBlock != null ? 1 : 0, dead: t?.dead ?? '',
      // The verdict's facts the aggregates split on (migration 026), frozen with it.
      verdict_late: isLateLag(Number(d.lag)) ? 1 : 0, verdict_priced: Number(d.quoted) ? 1 : 0,
    }
  })
  await ch.insert({
    table: 'launch_marks', values: rows, format: 'JSONEachRow',
    clickhouse_settings: { insert_deduplication_token: `launch-marks:${chainId}:${horizon}:${at.block}:${rows[0]!.token}:${rows.length}` },
  })
  return rows.length
}

export interface LaunchOutcomes {
  /**
   * Record what fell due by the served batch `at`: verdicts first, then marks. `launchedFrom`:
   * the batch ingested launches (verdict candidates no earlier read could know), the earliest at
   * this time (unix s; -Infinity when the batch does not tell it). `recordsWritten`: the served
   * batch's token and deployer records are being written beside this run; what fell due is read
   * meanwhile, what is taken from the records once it settles.
   */
  run(at: TakenAt, batch?: { launchedFrom?: number }, recordsWritten?: Promise<void>): Promise<{ verdicts: number; marks: number }>
}

/**
 * The step the chain processor runs after each served batch. It remembers, per kind, the launch
 * time it has covered through, so a batch where nothing falls due costs one query; it re-reads
 * the recorded cursors on its first run and whenever the served block goes back (a reorg
 * deleted what was taken at orphaned blocks) or a run failed.
 */
export function createLaunchOutcomes(ch: ClickHouseClient, chainId: number): LaunchOutcomes {
  let covered: Record<Kind, number> | null = null
  /**
   * Per kind, the launch time of the next candidate (Infinity: there is none). Launches and
   * verdicts arrive in launch-time order, so a later one is never earlier than a candidate
   * already known; a batch's launches bring the verdicts' next to their earliest launch time (a
   * launch whose time the batch does not tell makes it unknown until read), and the verdicts this
   * step records are folded in for the marks. A batch whose chain time brings no kind up to its
   * next candidate asks the engine nothing: a launch's batch too, its verdict falling due 15
   * minutes of chain time later.
   */
  let next: Record<Kind, number> | null = null
  let lastBlock = -1
  return {
    async run(at, batch, recordsWritten) {
      if (at.block <= lastBlock) covered = next = null
      lastBlock = at.block
      if (batch?.launchedFrom !== undefined && next) next.verdict = Math.min(next.verdict, batch.launchedFrom)
      if (covered && next && KINDS.every((k) => throughOf(at.chainTime, k) < next![k])) return { verdicts: 0, marks: 0 }
      try {
        const from = (covered ??= await cursors(ch, chainId))
        let read = await dueRows(ch, chainId, from, at.chainTime)
        if (read.due.length) await recordsWritten
        const verdictsDue = read.due.filter((d) => d.kind === 'verdict')
        const verdicts = verdictsDue.length ? await insertVerdicts(ch, chainId, verdictsDue, at) : 0
        from.verdict = throughOf(at.chainTime, 'verdict')
        // Verdicts just taken may already be due for a mark (a batch spanning more than an hour): read again.
        if (verdicts > 0 && verdictsDue.some((d) => Number(d.at) <= throughOf(at.chainTime, '1h'))) read = await dueRows(ch, chainId, from, at.chainTime)
        next = read.next
        // The verdicts just recorded are candidates of every mark (a read before them missed them).
        for (const d of verdictsDue) for (const h of BASKET_HORIZONS) next[h.name] = Math.min(next[h.name], Number(d.at))
        let marks = 0
        for (const h of BASKET_HORIZONS) {
          const ds = read.due.filter((d) => d.kind === h.name)
          if (ds.length) marks += await insertMarks(ch, chainId, h.name, ds, at)
          from[h.name] = throughOf(at.chainTime, h.name)
        }
        return { verdicts, marks }
      } catch (err) {
        covered = next = null
        throw err
      }
    },
  }
}

