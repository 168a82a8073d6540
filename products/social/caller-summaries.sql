-- Per caller, what grading needs, as maintained by migration 012 (caller_stats: one row per
-- caller once merged; grades are added by sign as the grader writes them): calls, graded calls,
-- early and momentum calls, hits, and the graded returns as parallel arrays of values and counts
-- (products/social/caller-grade.ts takes the exact median of them and turns all into score and grade).
-- Access path: caller_stats by its key (author), every caller: a table whose size is the number
-- of callers, not of calls or swaps.
SELECT
    author,
    uniqExactMerge(calls) AS calls,
    sum(graded) AS graded,
    sum(early) AS early,
    sum(momentum) AS momentum,
    sum(hits) AS hits,
    sumMapMerge(returns) AS returns
FROM caller_stats
GROUP BY author
