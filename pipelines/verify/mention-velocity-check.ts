import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { ViewCheck } from '../../core/records/verify-report.ts'

/**
 * The mention windows, per token and hour (mention_hourly: velocity) and per token and minute
 * (mention_minute: /pulse): distinct posts and the accounts that posted. A token is sampled whole.
 */
function mentionCheck(view: 'mention_hourly' | 'mention_minute', bucket: 'hour' | 'minute'): ViewCheck {
  const start = bucket === 'hour' ? 'toStartOfHour' : 'toStartOfMinute'
  const fresh = (where: string) => `
    SELECT token, ${start}(posted_at) AS ${bucket}, uniqExactState(sipHash64(post_id)) AS posts, groupUniqArrayState(author) AS authors
    FROM mentions WHERE token != '' AND ${where} GROUP BY token, ${bucket}`
  return {
    view,
    against: `the mentions rows of the token, by ${bucket} posted (distinct posts, distinct authors)`,
    perChain: false,
    kept: (sample) => `
      SELECT concat(token, '/', toString(${bucket})) AS key, toString(tuple(uniqExactMerge(posts), arraySort(groupUniqArrayMerge(authors)))) AS v
      FROM ${view} WHERE ${sample('token')} GROUP BY token, ${bucket}`,
    fresh: (sample) => `
      SELECT concat(token, '/', toString(${bucket})) AS key, toString(tuple(uniqExactMerge(posts), arraySort(groupUniqArrayMerge(authors)))) AS v
      FROM (${fresh(sample('token'))}) GROUP BY token, ${bucket}`,
    // The drifted tokens' windows are replaced whole by their mentions'.
    async repair(ch: ClickHouseClient, _chain, keys) {
      const tokens = [...new Set(keys.map((k) => k.slice(0, k.indexOf('/'))))]
      await ch.command({ query: `DELETE FROM ${view} WHERE token IN {tokens:Array(String)}`, query_params: { tokens } })
      await ch.command({
        query: `INSERT INTO ${view} (token, ${bucket}, posts, authors) ${fresh('token IN {tokens:Array(String)}')}`,
        query_params: { tokens },
        clickhouse_settings: { insert_deduplicate: 0 },
      })
    },
  }
}

export const mentionHourlyCheck = mentionCheck('mention_hourly', 'hour')
export const mentionMinuteCheck = mentionCheck('mention_minute', 'minute')
