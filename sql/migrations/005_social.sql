-- The social pipeline. Every social aggregate is built from idempotent aggregate functions
-- (uniqExact over natural keys, min, max), so a redelivered record changes no aggregate,
-- whatever batch it arrives in: exactly-once in effect without batch tokens.

-- A post's reference to a token. Ambiguous cashtags are kept with token '' and the symbol:
-- recorded, never guessed. Post text is not stored.
CREATE TABLE IF NOT EXISTS mentions
(
    post_id     String,
    token       String,
    symbol      String,
    via         Enum8('address' = 1, 'cashtag' = 2),
    ambiguous   UInt8,
    author      String,
    posted_at   DateTime('UTC'),
    captured_at DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (token, symbol, post_id);

-- Mentions per token and hour: the 24 h velocity and momentum windows.
CREATE TABLE IF NOT EXISTS mention_hourly
(
    token   String,
    hour    DateTime('UTC'),
    posts   AggregateFunction(uniqExact, UInt64),
    -- The accounts themselves (not a count): momentum collapses mutual-follow clusters.
    authors AggregateFunction(groupUniqArray, String)
)
ENGINE = AggregatingMergeTree
ORDER BY (token, hour);

CREATE MATERIALIZED VIEW IF NOT EXISTS mention_hourly_mv TO mention_hourly AS
SELECT token, toStartOfHour(posted_at) AS hour, uniqExactState(sipHash64(post_id)) AS posts, groupUniqArrayState(author) AS authors
FROM mentions
WHERE token != ''
GROUP BY token, hour;

-- A call is an account's first mention of a token.
CREATE TABLE IF NOT EXISTS calls
(
    author      String,
    token       String,
    called_at   SimpleAggregateFunction(min, DateTime('UTC')),
    captured_at SimpleAggregateFunction(min, DateTime('UTC')),
    first_post  AggregateFunction(argMin, String, DateTime('UTC')),
    mentions    AggregateFunction(uniqExact, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY (author, token);

CREATE MATERIALIZED VIEW IF NOT EXISTS calls_mv TO calls AS
SELECT author, token, min(posted_at) AS called_at, min(captured_at) AS captured_at,
       argMinState(post_id, posted_at) AS first_post, uniqExactState(sipHash64(post_id)) AS mentions
FROM mentions
WHERE token != ''
GROUP BY author, token;

-- Follow snapshots of tracked accounts, as polled.
CREATE TABLE IF NOT EXISTS follow_snapshots
(
    account     String,
    observed_at DateTime('UTC'),
    following   Array(String),
    watched     UInt8
)
ENGINE = ReplacingMergeTree
ORDER BY (account, observed_at);

-- Transitions between consecutive snapshots. 'baseline' edges were there when tracking began:
-- they have no date and are never reported as follows. id is deterministic, so a snapshot
-- processed twice yields the same rows.
CREATE TABLE IF NOT EXISTS follow_events
(
    id              String,
    watcher         String,
    followed        String,
    event           Enum8('baseline' = 0, 'follow' = 1, 'unfollow' = 2),
    observed_at     DateTime('UTC'),
    previous_poll   Nullable(DateTime('UTC')),
    watched         UInt8
)
ENGINE = ReplacingMergeTree
ORDER BY (observed_at, id);

-- Messaging-room sightings: opaque room ids, no text.
CREATE TABLE IF NOT EXISTS tg_sightings
(
    room       String,
    message_id String,
    token      String,
    seen_at    DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (token, room, message_id);

CREATE TABLE IF NOT EXISTS tg_token_stats
(
    token    String,
    rooms    AggregateFunction(uniqExact, String),
    messages AggregateFunction(uniqExact, String),
    first_at SimpleAggregateFunction(min, DateTime('UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY token;

CREATE MATERIALIZED VIEW IF NOT EXISTS tg_token_stats_mv TO tg_token_stats AS
SELECT token, uniqExactState(room) AS rooms, uniqExactState(concat(room, ':', message_id)) AS messages, min(seen_at) AS first_at
FROM tg_sightings
GROUP BY token;

CREATE TABLE IF NOT EXISTS caller_mirrors
(
    chain            LowCardinality(String),
    handle           String,
    calls            UInt32,
    early_rate       Float64,
    momentum_rate    Float64,
    median_return_1h Float64,
    score            UInt8,
    updated_at       DateTime('UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (chain, handle);
