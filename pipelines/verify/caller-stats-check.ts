import type { ViewCheck } from '../../core/records/verify-report.ts'

/**
 * What caller_stats holds per author, from raw rows: calls = distinct tokens the author
 * mentioned; graded, early, momentum and hits and the returns multiset over the author's current
 * grades (the latest call_grades row of each call, when it is not a cancel).
 */
const calls = (where: string) => `SELECT author, uniqExactState(token) AS calls FROM mentions WHERE token != '' AND ${where} GROUP BY author`
const grades = (where: string) => `
  SELECT author, toInt64(count()) AS graded, toInt64(sum(early)) AS early, toInt64(sum(momentum)) AS momentum, toInt64(countIf(return_1h > 0)) AS hits,
         sumMapState([return_1h], [toInt64(1)]) AS returns
  FROM call_grades FINAL WHERE ${where} AND sign = 1 GROUP BY author`

const figures = `toString(tuple(uniqExactMerge(calls), sum(graded), sum(early), sum(momentum), sum(hits), sumMapMerge(returns)))`

/** caller_stats per author: calls, graded, early, momentum, hits, the returns multiset. */
export const callerStatsCheck: ViewCheck = {
  view: 'caller_stats',
  against: 'the mentions rows (distinct tokens called) and the current call_grades rows of the author',
  perChain: false,
  kept: (sample) => `SELECT author AS key, ${figures} AS v FROM caller_stats WHERE ${sample('author')} GROUP BY author`,
  fresh: (sample) => `
    SELECT author AS key, toString(tuple(toUInt64(c.n), g.graded, g.early, g.momentum, g.hits, g.r)) AS v
    FROM (SELECT author, uniqExact(token) AS n FROM mentions WHERE token != '' AND ${sample('author')} GROUP BY author) AS c
    FULL OUTER JOIN (
      SELECT author, toInt64(count()) AS graded, toInt64(sum(early)) AS early, toInt64(sum(momentum)) AS momentum, toInt64(countIf(return_1h > 0)) AS hits,
             sumMap([return_1h], [toInt64(1)]) AS r
      FROM call_grades FINAL WHERE ${sample('author')} AND sign = 1 GROUP BY author
    ) AS g USING (author)
    SETTINGS join_use_nulls = 0`,
  // The two halves as the two views write them (a calls row, a grades row), merged by author.
  async repair(ch, _chain, keys) {
    const p = { authors: keys }
    const where = 'author IN {authors:Array(String)}'
    await ch.command({ query: `DELETE FROM caller_stats WHERE ${where}`, query_params: p })
    const settings = { insert_deduplicate: 0 as const }
    await ch.command({ query: `INSERT INTO caller_stats (author, calls) ${calls(where)}`, query_params: p, clickhouse_settings: settings })
    await ch.command({ query: `INSERT INTO caller_stats (author, graded, early, momentum, hits, returns) ${grades(where)}`, query_params: p, clickhouse_settings: settings })
  },
}
