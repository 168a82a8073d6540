import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

/**
 * A world of recorded +15 min verdicts and forward marks written straight into launch_verdicts
 * and launch_marks with INSERT … SELECT FROM numbers() (test/integration/outcome-rollup*.test.ts,
 * bench/outcomes.ts): `n` verdicts, two per launch second every 211 s from `t0`, four signals,
 * late verdicts (lag 601 s) and on-time ones at exactly 600 s, unpriced verdicts (1 in 11), marks
 * at 1 h / 24 h / 7 d for 90 / 70 / 50 % of them, some without a return, some at exactly 0, marks
 * sharing a mark time and block. Verdict i is taken at block 1000 + i. Marks copy their verdict's
 * lateness and pricing as the pipeline does (launch-verdicts.ts) unless `facts` is false (a
 * schema before migration 026).
 */
export async function buildOutcomeWorld(ch: ClickHouseClient, chain: number, t0: number, n: number, facts = true): Promise<void> {
  await ch.command({
    query: `INSERT INTO launch_verdicts (chain_id, launched_at, token, symbol, deployer, launch_block, due_at, taken_block, taken_at, lag_seconds, signal,
                                         confidence, reasons, quoted, entry_weth, entry_token, entry_price_weth, entry_quote_block, decimals)
      SELECT ${chain}, toDateTime(${t0} + intDiv(number, 2) * 211) AS at, concat('0x', lower(hex(sipHash64(number)))), concat('S', toString(number)), '', 100 + number,
             at + 900, 1000 + number, at + 900 + lag, multiIf(number % 13 = 0, 601, number % 17 = 0, 600, number % 7) AS lag,
             ['low_risk', 'low_risk', 'moderate_risk', 'high_risk', 'avoid'][number % 5 + 1], (number % 100) / 100, '[]',
             toUInt8(number % 11 != 3) AS q, toUInt256(if(q, 1000 + number, 0)), toUInt256(if(q, 10, 0)), if(q, toString(number / 1e5), ''), if(q, 999 + number, 0), 18
      FROM numbers(${n})`,
    clickhouse_settings: { insert_deduplication_token: `outcome-world-verdicts:${chain}:${t0}:${n}` },
  })
  // Marks copy their verdict's lateness and pricing, as the pipeline does (launch-verdicts.ts).
  await ch.command({
    query: `INSERT INTO launch_marks (chain_id, horizon, launched_at, token, signal, due_at, marked_block, marked_at, quoted, mark_weth, mark_token, price_weth,
                                      forward_return, is_real, dead${facts ? ', verdict_late, verdict_priced' : ''})
      SELECT chain_id, h.1 AS horizon, launched_at, token, signal, due_at + h.2, intDiv(taken_block, 2) * 2 + h.3 AS mb,
             toDateTime(intDiv(toUnixTimestamp(due_at) + h.2, 1200) * 1200) AS ma, 1, toUInt256(1), toUInt256(1), '1',
             if(quoted = 1 AND launch_block % 19 != 5, if(launch_block % 23 = 0, 0, round(sin(launch_block * 1.7 + h.3) * 2, 6)), NULL),
             toUInt8((launch_block + h.3) % 3 = 0), if(launch_block % 4 = 1, 'liquidity_removed', '')${facts ? ', toUInt8(lag_seconds > 600), quoted' : ''}
      FROM launch_verdicts ARRAY JOIN [('1h', 3600, 30), ('24h', 86400, 900), ('7d', 604800, 6300)] AS h
      WHERE chain_id = ${chain} AND launch_block % 10 < multiIf(h.1 = '1h', 9, h.1 = '24h', 7, 5)`,
    clickhouse_settings: { insert_deduplication_token: `outcome-world-marks:${chain}:${t0}:${n}` },
  })
}

/** The rollup per key and what the remaining raw rows give for the same key (counts and sorted returns). */
export async function rollupAgainstRaw(ch: ClickHouseClient, chain: number) {
  const q = (sql: string) => queryRows<Record<string, unknown>>(ch, sql)
  const rollup = await q(`SELECT signal, horizon, launch_day, late, priced, sum(n) AS n, sum(real_marks) AS r, sum(dead_marks) AS d, arraySort(groupArrayMerge(returns)) AS rs
    FROM outcome_rollup WHERE chain_id = ${chain} GROUP BY signal, horizon, launch_day, late, priced HAVING n > 0 ORDER BY signal, horizon, launch_day, late, priced`)
  const raw = await q(`SELECT signal, horizon, launch_day, late, priced, n, r, d, rs FROM (
      SELECT signal, '' AS horizon, toDate(launched_at) AS launch_day, toUInt8(lag_seconds > 600) AS late, quoted AS priced, count() AS n, 0 AS r, 0 AS d, [] :: Array(Float64) AS rs
      FROM launch_verdicts FINAL WHERE chain_id = ${chain} GROUP BY signal, launch_day, late, priced
      UNION ALL
      SELECT m.signal, m.horizon, toDate(m.launched_at) AS launch_day, toUInt8(v.lag_seconds > 600) AS late, v.quoted AS priced, count() AS n, sum(m.is_real) AS r,
             countIf(m.dead != '') AS d, arraySort(groupArrayIf(assumeNotNull(m.forward_return), isNotNull(m.forward_return))) AS rs
      FROM launch_marks AS m FINAL INNER JOIN (SELECT token, lag_seconds, quoted FROM launch_verdicts FINAL WHERE chain_id = ${chain}) AS v ON v.token = m.token
      WHERE m.chain_id = ${chain}
      GROUP BY m.signal, m.horizon, launch_day, late, priced)
    ORDER BY signal, horizon, launch_day, late, priced`)
  const norm = (rows: Array<Record<string, unknown>>) => rows.map((r) => ({ ...r, n: Number(r.n), r: Number(r.r), d: Number(r.d), rs: (r.rs as number[]).map(Number), late: Number(r.late), priced: Number(r.priced) }))
  return { rollup: norm(rollup), raw: norm(raw) }
}

