-- Calls are graded once, when their hour has passed, and stored (DESIGN §6: a call's grade is a
-- fact that freezes when it happens). The grader (pipelines/social/grade-calls.ts) reads only
-- what changed since its last pass, through tables kept for those access paths; caller
-- summaries are aggregated from the grades as they are written. This replaces the
-- `graded_calls` view (006), which regraded every call from the block-ordered swaps on each read.
-- Same rules (core/domain/caller-grade.ts), one precision: entry and exit are the first and last
-- swap by (block, log index); the view's ASOF join took either of two swaps sharing a block time,
-- as it happened to read them.

-- Swaps by token: the grader's entry/exit prices are one token's swaps in one hour. `swaps` is
-- ordered by block, so that read would scan it; this copy is ordered by token, and the minmax
-- index on time prunes a token's history to the hour (block time grows with the block number).
-- Duplicates (a rollback replays surviving swaps through the views) share the key and carry the
-- same values, so readers are insensitive to them and merges remove them.
CREATE TABLE IF NOT EXISTS swaps_by_token
(
    chain_id     UInt32,
    token        String,
    block_number UInt64,
    log_index    UInt32,
    block_time   DateTime('UTC'),
    tx_hash      String,
    pool         String,
    protocol     LowCardinality(String),
    trader       String,
    token_in     UInt256,
    token_out    UInt256,
    weth_in      UInt256,
    weth_out     UInt256,
    INDEX block_time_minmax block_time TYPE minmax GRANULARITY 1
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, token, block_number, log_index)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS swaps_by_token_mv TO swaps_by_token AS
SELECT chain_id, token, block_number, log_index, block_time, tx_hash, pool, protocol, trader, token_in, token_out, weth_in, weth_out
FROM swaps;

-- Calls by time: which calls' hours closed between two chain times. Each insert into `calls`
-- is a partial aggregate (one batch's first mention), so a call may appear here at a later time
-- too; the grader takes each call's time from `calls` itself, by key.
-- Its deduplication window (and those of calls_noted and caller_stats) is set with the other
-- social tables' in migration 014.
CREATE TABLE IF NOT EXISTS calls_by_time
(
    called_at DateTime('UTC'),
    author    String,
    token     String
)
ENGINE = ReplacingMergeTree
ORDER BY (called_at, author, token);

CREATE MATERIALIZED VIEW IF NOT EXISTS calls_by_time_mv TO calls_by_time AS
SELECT called_at, author, token FROM calls;

-- Calls by arrival: a call stored after its hour had already closed (the firehose behind the
-- chain, a late post moving a call earlier) is found here by the time it was noted; called_at is
-- the stored batch's first mention, so a pass skips the calls still inside their hour (those are
-- found by calls_by_time when it closes). Kept a week.
CREATE TABLE IF NOT EXISTS calls_noted
(
    noted_at  DateTime64(3, 'UTC'),
    author    String,
    token     String,
    called_at DateTime('UTC')
)
ENGINE = MergeTree
ORDER BY (noted_at, author, token)
TTL toDateTime(noted_at) + INTERVAL 7 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS calls_noted_mv TO calls_noted AS
SELECT now64(3) AS noted_at, author, token, called_at FROM calls;

-- Tokens by the time they were noted real: a token becoming real changes its earlier calls from
-- unclassified to early. Rows of a rolled-back crossing stay here (a delete does not reach a
-- view); the grader reads the token's real status from `token_real` itself, by key.
CREATE TABLE IF NOT EXISTS token_real_noted
(
    chain_id   UInt32,
    noted_at   DateTime64(3, 'UTC'),
    token      String,
    real_block UInt64
)
ENGINE = MergeTree
ORDER BY (chain_id, noted_at, token)
TTL toDateTime(noted_at) + INTERVAL 7 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_real_noted_mv TO token_real_noted AS
SELECT chain_id, now64(3) AS noted_at, token, real_block FROM token_real;

-- Graded calls: a call whose hour has passed and whose token traded in that hour, with its entry
-- and exit, 1 h return, the token's run when graded and the early/momentum classification
-- (core/domain/caller-grade.ts). Written only by the grader. A grade that changes (a token turned
-- real, a reorg) is written as a cancel row (sign -1, the stored row's values and version) and,
-- unless the call is no longer graded, a new row (sign 1, a higher version): the latest row of a
-- key is its state, and the summaries below add the signs.
CREATE TABLE IF NOT EXISTS call_grades
(
    author      String,
    token       String,
    called_at   DateTime('UTC'),
    captured_at DateTime('UTC'),
    post_id     String,
    entry_price Float64,
    entry_at    DateTime('UTC'),
    exit_price  Float64,
    exit_at     DateTime('UTC'),
    return_1h   Float64,
    -- The token's run (becoming real) as known when graded; 0 when it had none.
    run_at      DateTime('UTC'),
    early       UInt8,
    momentum    UInt8,
    -- Chain time (unix seconds) of the grader pass that wrote the row.
    graded_at   DateTime('UTC'),
    version     UInt64,
    sign        Int8
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (author, token)
SETTINGS non_replicated_deduplication_window = 10000;

-- The same rows by token: the grades a token's new run or a reorg must revisit.
CREATE TABLE IF NOT EXISTS call_grades_by_token AS call_grades
ENGINE = ReplacingMergeTree(version)
ORDER BY (token, author)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS call_grades_by_token_mv TO call_grades_by_token AS
SELECT * FROM call_grades;

-- Per caller, what grading needs (sql/queries/caller_summaries.sql reads it): calls from `calls`
-- (distinct tokens: a redelivered mention changes nothing), graded/early/momentum/hits as sums
-- of signs, and the graded returns as a multiset (value -> count, zero counts dropped) from
-- which the exact median is taken. The grader never writes a change twice (it writes only what
-- differs from the stored grades), which is what keeps the sums exact.
CREATE TABLE IF NOT EXISTS caller_stats
(
    author   String,
    calls    AggregateFunction(uniqExact, String),
    graded   SimpleAggregateFunction(sum, Int64),
    early    SimpleAggregateFunction(sum, Int64),
    momentum SimpleAggregateFunction(sum, Int64),
    hits     SimpleAggregateFunction(sum, Int64),
    returns  AggregateFunction(sumMap, Array(Float64), Array(Int64))
)
ENGINE = AggregatingMergeTree
ORDER BY author;

CREATE MATERIALIZED VIEW IF NOT EXISTS caller_stats_calls_mv TO caller_stats AS
SELECT author, uniqExactState(token) AS calls FROM calls GROUP BY author;

CREATE MATERIALIZED VIEW IF NOT EXISTS caller_stats_grades_mv TO caller_stats AS
SELECT
    author,
    sum(toInt64(sign)) AS graded,
    sum(toInt64(sign) * early) AS early,
    sum(toInt64(sign) * momentum) AS momentum,
    sum(toInt64(sign) * (return_1h > 0)) AS hits,
    sumMapState([return_1h], [toInt64(sign)]) AS returns
FROM call_grades
GROUP BY author;

-- The grader's checkpoint, one row per chain (the latest `version` is current): windows closed
-- through `graded_through` (chain time, unix seconds) are graded; calls and real tokens noted
-- through the two marks (unix ms, the database clock) are seen; reorgs detected through
-- `reorgs_through` (unix ms) are handled.
CREATE TABLE IF NOT EXISTS call_grader_state
(
    chain_id       UInt32,
    graded_through UInt32,
    calls_noted    UInt64,
    real_noted     UInt64,
    reorgs_through UInt64,
    version        UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY chain_id;

-- Existing data: swaps and calls are copied, and callers' call counts summed; the grader's first
-- pass (checkpoint zero) grades every call whose hour has closed. A row that reached a view and
-- the copy both is a duplicate key, which these tables absorb.
INSERT INTO swaps_by_token
SELECT chain_id, token, block_number, log_index, block_time, tx_hash, pool, protocol, trader, token_in, token_out, weth_in, weth_out
FROM swaps;

INSERT INTO calls_by_time SELECT called_at, author, token FROM calls;

INSERT INTO caller_stats (author, calls) SELECT author, uniqExactState(token) FROM calls GROUP BY author;

-- Nothing reads the regrading view any more.
DROP VIEW IF EXISTS graded_calls;
