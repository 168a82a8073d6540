-- Callers served by key (DESIGN §6): each caller's computed record is stored when its inputs
-- change (pipelines/social/caller-state.ts), and mutual-follow clusters are stored per account
-- when follow snapshots arrive, so the API reads the callers a request names, one key at a time,
-- instead of loading every caller and every follow snapshot per social version.

-- What changed a caller's inputs, by the time it was noted (the database clock): a call stored
-- (its call count), a grade written (graded, early, momentum, hits, the returns), a follow
-- snapshot stored (the clusters around the account). The refresher reads the authors noted since
-- its last pass: a range read on the key. Kept a week, like calls_noted; a deduplication window
-- like every target of a social view (migration 014), so a retried batch is noted once.
CREATE TABLE IF NOT EXISTS caller_inputs_noted
(
    noted_at DateTime64(3, 'UTC'),
    author   String,
    source   LowCardinality(String)
)
ENGINE = MergeTree
ORDER BY (noted_at, author)
TTL toDateTime(noted_at) + INTERVAL 7 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS caller_inputs_calls_mv TO caller_inputs_noted AS
SELECT now64(3) AS noted_at, author, 'calls' AS source FROM calls;

CREATE MATERIALIZED VIEW IF NOT EXISTS caller_inputs_grades_mv TO caller_inputs_noted AS
SELECT now64(3) AS noted_at, author, 'grades' AS source FROM call_grades;

CREATE MATERIALIZED VIEW IF NOT EXISTS caller_inputs_follows_mv TO caller_inputs_noted AS
SELECT now64(3) AS noted_at, account AS author, 'follows' AS source FROM follow_snapshots;

-- Each account's mutual-follow cluster (the smallest handle in it; '' when the account is in
-- none), written for the accounts whose cluster changed. The newest version wins. The
-- projection lists a cluster's members: what a changed edge must revisit.
CREATE TABLE IF NOT EXISTS account_clusters
(
    account String,
    cluster String,
    version UInt64,
    PROJECTION by_cluster (SELECT cluster, account, version ORDER BY cluster, account)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY account
SETTINGS deduplicate_merge_projection_mode = 'rebuild';

-- One row per caller (an author in caller_stats), the newest version wins: the counts it was
-- computed from and the record core/domain/caller-grade.ts makes of them (scoreCaller), with its
-- cluster. grade '' and score NULL: no graded call yet. Written only when the record differs
-- from the stored one.
CREATE TABLE IF NOT EXISTS caller_state
(
    author           String,
    calls            UInt64,
    graded           Int64,
    early            Int64,
    momentum         Int64,
    hits             Int64,
    early_rate       Float64,
    momentum_rate    Float64,
    hit_rate         Float64,
    median_return_1h Nullable(Float64),
    score            Nullable(Int16),
    grade            LowCardinality(String),
    measured         UInt8,
    cluster          String,
    version          UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY author;

-- What each refresh changed, in seq order (microseconds, always increasing): kind 'caller'
-- (a caller_state row) or 'cluster' (an account_clusters row). API processes read the rows after
-- the last seq they saw and drop exactly those keys from their caches.
CREATE TABLE IF NOT EXISTS caller_changes
(
    seq  UInt64,
    kind LowCardinality(String),
    key  String,
    at   DateTime('UTC') DEFAULT now()
)
ENGINE = MergeTree
ORDER BY seq
TTL at + INTERVAL 2 DAY;

-- The refresher's checkpoint (newest version wins): inputs noted through `noted_through` (unix
-- ms, the database clock) are reflected in caller_state and account_clusters. No row: the
-- one-time build from caller_stats and follow_snapshots has not run.
CREATE TABLE IF NOT EXISTS caller_state_progress
(
    id            UInt8,
    noted_through UInt64,
    version       UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY id;
