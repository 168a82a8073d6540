-- Per caller, what grading needs: calls, graded calls, early and momentum calls, hits and the
-- median 1 h return (core/domain/caller-grade.ts turns these into the score and grade).
SELECT
    author,
    count() AS calls,
    countIf(return_1h IS NOT NULL) AS graded,
    countIf(return_1h IS NOT NULL AND toUnixTimestamp(run_at) > 0 AND called_at < run_at) AS early,
    countIf(return_1h IS NOT NULL AND toUnixTimestamp(run_at) > 0 AND called_at >= run_at) AS momentum,
    countIf(return_1h > 0) AS hits,
    quantileExactInclusiveIf(0.5)(return_1h, return_1h IS NOT NULL) AS median_return,
    toUnixTimestamp(max(called_at)) AS last_call
FROM graded_calls(chain = {chain:UInt32}, chain_time = {chain_time:UInt32}, author = '')
GROUP BY author
