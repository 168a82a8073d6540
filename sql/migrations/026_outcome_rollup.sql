-- /basket and /proof.json from aggregates kept as verdicts and marks are recorded (issue 13): the
-- served figures read per-day rollup rows and the basket's 24 h closes, never every recorded
-- verdict and mark. The rules (lateness, membership, median, hit rate) are core/domain/basket.ts;
-- the SQL below keeps what they need: test/integration/outcome-rollup.test.ts checks both agree.

-- A mark carries the facts of its verdict the figures split on, copied when the mark is taken
-- (pipelines/process/launch-verdicts.ts): they froze with the verdict.
ALTER TABLE launch_marks
    ADD COLUMN IF NOT EXISTS verdict_late UInt8 DEFAULT 0 COMMENT '1 when the token''s +15 min verdict was taken more than 600 s after its due time (late: left out of the basket and the proof), copied from launch_verdicts',
    ADD COLUMN IF NOT EXISTS verdict_priced UInt8 DEFAULT 0 COMMENT '1 when the token had a price when its verdict was taken (launch_verdicts.quoted), copied';

-- Marks recorded before this migration: their verdict's facts, once (synchronous: the backfill below reads them).
ALTER TABLE launch_marks UPDATE
    verdict_late = (chain_id, launched_at, token) IN (SELECT chain_id, launched_at, token FROM launch_verdicts WHERE lag_seconds > 600),
    verdict_priced = (chain_id, launched_at, token) IN (SELECT chain_id, launched_at, token FROM launch_verdicts WHERE quoted = 1)
WHERE 1 SETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1;

-- Per chain, verdict signal, horizon ('' for the verdicts themselves), launch day and the two
-- verdict facts: counts, the launch-time window and the measured returns (kept whole, so the
-- median is exact: the mean of the middle two for an even count, as basket.ts median()).
CREATE TABLE IF NOT EXISTS outcome_rollup
(
    chain_id     UInt32 COMMENT 'chain id',
    signal       LowCardinality(String) COMMENT 'the recorded +15 min verdict signal',
    horizon      LowCardinality(String) COMMENT 'empty for rows counting the recorded verdicts; 1h, 24h or 7d for rows counting their forward marks',
    launch_day   Date COMMENT 'UTC day of launched_at (chain clock): what a reorg rebuilds',
    late         UInt8 COMMENT '1: verdicts taken more than 600 s after their due time (and their marks)',
    priced       UInt8 COMMENT '1: verdicts with a price when taken (and their marks)',
    n            SimpleAggregateFunction(sum, UInt64) COMMENT 'verdicts (horizon '''') or marks counted',
    first_launch SimpleAggregateFunction(min, DateTime('UTC')) COMMENT 'earliest launched_at counted',
    last_launch  SimpleAggregateFunction(max, DateTime('UTC')) COMMENT 'latest launched_at counted',
    real_marks   SimpleAggregateFunction(sum, UInt64) COMMENT 'marks whose token was real at the mark (0 on verdict rows)',
    dead_marks   SimpleAggregateFunction(sum, UInt64) COMMENT 'marks whose token was dead at the mark (0 on verdict rows)',
    returns      AggregateFunction(groupArray, Float64) COMMENT 'the measured forward returns of the marks (mark price / entry price - 1), those without one left out; empty on verdict rows'
)
ENGINE = AggregatingMergeTree
ORDER BY (chain_id, signal, horizon, launch_day, late, priced)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'Recorded +15 min verdicts and their forward marks rolled up per signal, horizon and launch day (issue 13: /basket, /proof.json). Key: chain_id, signal, horizon, launch_day, late, priced';

CREATE MATERIALIZED VIEW IF NOT EXISTS outcome_rollup_verdicts_mv TO outcome_rollup AS
SELECT chain_id, signal, '' AS horizon, toDate(launched_at) AS launch_day, toUInt8(lag_seconds > 600) AS late, quoted AS priced,
       toUInt64(count()) AS n, min(launched_at) AS first_launch, max(launched_at) AS last_launch, toUInt64(0) AS real_marks, toUInt64(0) AS dead_marks,
       groupArrayStateIf(toFloat64(0), 0) AS returns
FROM launch_verdicts
GROUP BY chain_id, signal, launch_day, late, priced;

CREATE MATERIALIZED VIEW IF NOT EXISTS outcome_rollup_marks_mv TO outcome_rollup AS
SELECT chain_id, signal, horizon, toDate(launched_at) AS launch_day, verdict_late AS late, verdict_priced AS priced,
       toUInt64(count()) AS n, min(launched_at) AS first_launch, max(launched_at) AS last_launch, toUInt64(sum(is_real)) AS real_marks, toUInt64(countIf(dead != '')) AS dead_marks,
       groupArrayStateIf(assumeNotNull(forward_return), isNotNull(forward_return)) AS returns
FROM launch_marks
GROUP BY chain_id, signal, horizon, launch_day, late, priced;

INSERT INTO outcome_rollup
SELECT chain_id, signal, '' AS horizon, toDate(launched_at) AS launch_day, toUInt8(lag_seconds > 600) AS late, quoted AS priced,
       toUInt64(count()), min(launched_at), max(launched_at), toUInt64(0), toUInt64(0), groupArrayStateIf(toFloat64(0), 0)
FROM launch_verdicts FINAL
WHERE (SELECT count() FROM outcome_rollup WHERE horizon = '') = 0
GROUP BY chain_id, signal, launch_day, late, priced;

INSERT INTO outcome_rollup
SELECT chain_id, signal, horizon, toDate(launched_at) AS launch_day, verdict_late AS late, verdict_priced AS priced,
       toUInt64(count()), min(launched_at), max(launched_at), toUInt64(sum(is_real)), toUInt64(countIf(dead != '')),
       groupArrayStateIf(assumeNotNull(forward_return), isNotNull(forward_return))
FROM launch_marks FINAL
WHERE (SELECT count() FROM outcome_rollup WHERE horizon != '') = 0
GROUP BY chain_id, signal, horizon, launch_day, late, priced;

-- The paper basket's closed positions: the 24 h marks with a measured return of on-time, priced
-- low_risk verdicts, in the order they were taken (the equity curve is one point per row).
CREATE TABLE IF NOT EXISTS basket_closes
(
    chain_id       UInt32 COMMENT 'chain id',
    marked_at      DateTime('UTC') COMMENT 'block time of the 24 h mark that closed the position (chain clock)',
    marked_block   UInt64 COMMENT 'the served block at which the mark was taken',
    launched_at    DateTime('UTC') COMMENT 'block time of the member''s launch',
    token          String COMMENT 'token address of the member',
    return_24h     Float64 COMMENT 'measured 24 h return: mark price / entry price - 1 (launch_marks.forward_return)'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, marked_at, marked_block, launched_at, token)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'The paper basket''s positions closed at their 24 h mark, in chain-time order (issue 13: /basket equity curve). Key: chain_id, marked_at, marked_block, launched_at, token';

CREATE MATERIALIZED VIEW IF NOT EXISTS basket_closes_mv TO basket_closes AS
-- (The return is named apart: an alias equal to a column name would be what WHERE reads.)
SELECT chain_id, marked_at, marked_block, launched_at, token, assumeNotNull(forward_return) AS return_24h
FROM launch_marks
WHERE horizon = '24h' AND signal = 'low_risk' AND verdict_late = 0 AND verdict_priced = 1 AND isNotNull(forward_return);

INSERT INTO basket_closes
SELECT chain_id, marked_at, marked_block, launched_at, token, assumeNotNull(forward_return)
FROM launch_marks FINAL
WHERE horizon = '24h' AND signal = 'low_risk' AND verdict_late = 0 AND verdict_priced = 1 AND isNotNull(forward_return)
  AND (SELECT count() FROM basket_closes) = 0;
