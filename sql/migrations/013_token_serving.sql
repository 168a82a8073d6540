-- Serving state kept by key (DESIGN §6): each block batch refreshes the tokens and deployers it
-- touched (pipelines/process/serving-refresh.ts); the API reads one key at a time, so no
-- per-block or per-request path reads all tokens or all raw rows.

-- Transfers ordered by token: a token's transfers (its pre-launch distribution, its holders) are
-- one keyed range read. erc20_transfers itself is ordered by block.
CREATE TABLE IF NOT EXISTS transfers_by_token
(
    chain_id     UInt32,
    token        String,
    block_number UInt64,
    log_index    UInt32,
    tx_hash      String,
    from_address String,
    to_address   String,
    value        UInt256,
    block_time   DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, token, block_number, log_index)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS transfers_by_token_mv TO transfers_by_token AS
SELECT chain_id, token, block_number, log_index, tx_hash, from_address, to_address, value, block_time
FROM erc20_transfers;

INSERT INTO transfers_by_token
SELECT chain_id, token, block_number, log_index, tx_hash, from_address, to_address, value, block_time
FROM erc20_transfers
WHERE (SELECT count() FROM transfers_by_token) = 0;

-- Launches in feed order: a feed page is one range read from a cursor.
CREATE TABLE IF NOT EXISTS launch_feed
(
    chain_id     UInt32,
    visible_at   DateTime64(6, 'UTC'),
    token        String,
    block_number UInt64
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, visible_at, token)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS launch_feed_mv TO launch_feed AS
SELECT chain_id, visible_at, token, block_number FROM launches;

INSERT INTO launch_feed
SELECT chain_id, visible_at, token, block_number FROM launches
WHERE (SELECT count() FROM launch_feed) = 0;

-- One row per token (the newest version wins): launch facts, activity, the block it became real,
-- the latest quote, supply, launch-pool liquidity and the pre-launch distribution (computed once,
-- in the batch that launched it). `present = 0` marks a token a reorg removed.
-- Dead (idle 72 h) depends on the clock and is decided when read, from last_activity.
CREATE TABLE IF NOT EXISTS token_state
(
    chain_id             UInt32,
    token                String,
    present              UInt8,
    deployer             String,
    name                 String,
    symbol               String,
    symbol_lower         String,
    name_lower           String,
    decimals             Nullable(UInt8),
    created              UInt8,
    created_block        UInt64,
    created_at           DateTime('UTC'),
    launched             UInt8,
    launch_pool          String,
    launch_protocol      String,
    launch_block         UInt64,
    launched_at          DateTime('UTC'),
    visible_us           Int64,
    swaps                UInt64,
    weth_volume          UInt256,
    traders              UInt64,
    first_swap_block     UInt64,
    last_swap_block      UInt64,
    last_swap_time       DateTime('UTC'),
    is_real              UInt8,
    real_block           UInt64,
    real_at              DateTime('UTC'),
    quoted               UInt8,
    quote                Tuple(UInt256, UInt256, String, DateTime('UTC'), UInt64),
    price_weth           Float64,
    eth_usd              Nullable(String),
    minted               UInt256,
    burned               UInt256,
    liquidity_added      UInt256,
    liquidity_removed    UInt256,
    prelaunch_recipients UInt64,
    last_activity        UInt32,
    version              UInt64,
    INDEX name_ngrams name_lower TYPE ngrambf_v1(3, 4096, 2, 0) GRANULARITY 1,
    -- A deployer's tokens, tokens by symbol, tokens by price (chart matching) and tokens by
    -- last activity (those turning idle) are each one keyed read.
    PROJECTION by_deployer (SELECT * ORDER BY chain_id, deployer, token),
    PROJECTION by_symbol (SELECT chain_id, symbol_lower, token, version ORDER BY chain_id, symbol_lower, token),
    PROJECTION by_price (SELECT chain_id, price_weth, token, version ORDER BY chain_id, price_weth),
    PROJECTION by_activity (SELECT chain_id, last_activity, token, deployer, version ORDER BY chain_id, last_activity)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (chain_id, token)
-- Small granules: every read is of a few keys (see migration 016 for why it matters).
SETTINGS deduplicate_merge_projection_mode = 'rebuild', index_granularity = 256;

-- One row per deployer (newest version wins), refreshed when one of its tokens changes or turns
-- idle. `launched = 0` is no record (all its launches were removed by a reorg).
CREATE TABLE IF NOT EXISTS deployer_state
(
    chain_id           UInt32,
    deployer           String,
    launched           UInt32,
    real               UInt32,
    dead               UInt32,
    insider_prep_count UInt32,
    best_token         String,
    best_symbol        String,
    best_volume        UInt256,
    score              Int16,
    band               LowCardinality(String),
    version            UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (chain_id, deployer)
SETTINGS index_granularity = 256;

-- What each refresh changed, in order (seq: microseconds, always increasing): API processes read
-- the rows after the last seq they saw and drop exactly those keys from their caches. A row of
-- kind 'batch' marks a refreshed batch and carries its watermark and chain time.
CREATE TABLE IF NOT EXISTS serving_changes
(
    chain_id   UInt32,
    seq        UInt64,
    kind       LowCardinality(String),
    key        String,
    watermark  UInt64,
    chain_time UInt32,
    at         DateTime('UTC') DEFAULT now()
)
ENGINE = MergeTree
ORDER BY (chain_id, seq)
-- Batch markers stay (one per batch, small): they tell a restarted process where serving stands.
TTL at + INTERVAL 2 DAY WHERE kind != 'batch';

-- Mentions of tokens in capture order: the calls first captured since a time are a range read
-- (calls itself is ordered by author and token).
CREATE TABLE IF NOT EXISTS mentions_by_capture
(
    captured_at DateTime('UTC'),
    author      String,
    token       String
)
ENGINE = ReplacingMergeTree
ORDER BY (captured_at, author, token)
TTL captured_at + INTERVAL 7 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS mentions_by_capture_mv TO mentions_by_capture AS
SELECT captured_at, author, token FROM mentions WHERE token != '';

-- Whole-chain totals for /stats, kept as rows arrive (views below) and, for distinct traders and
-- traded tokens, by the serving refresh, which checks each batch's traders against chain_traders
-- by key. A reorg recounts them, and so does the first start on a data dir from before this
-- table (pipelines/process/chain-totals.ts): aggregates cannot subtract orphaned rows.
CREATE TABLE IF NOT EXISTS chain_totals
(
    chain_id        UInt32,
    blocks          SimpleAggregateFunction(sum, UInt64),
    last_block_time SimpleAggregateFunction(max, DateTime('UTC')),
    creations       SimpleAggregateFunction(sum, UInt64),
    pools           SimpleAggregateFunction(sum, UInt64),
    transfers       SimpleAggregateFunction(sum, UInt64),
    swaps           SimpleAggregateFunction(sum, UInt64),
    weth_volume     SimpleAggregateFunction(sum, UInt256),
    traders         SimpleAggregateFunction(sum, UInt64),
    tokens_traded   SimpleAggregateFunction(sum, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY chain_id
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS chain_totals_blocks_mv TO chain_totals AS
SELECT chain_id, toUInt64(count()) AS blocks, max(timestamp) AS last_block_time FROM chain_blocks GROUP BY chain_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS chain_totals_creations_mv TO chain_totals AS
SELECT chain_id, toUInt64(count()) AS creations FROM contract_creations GROUP BY chain_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS chain_totals_pools_mv TO chain_totals AS
SELECT chain_id, toUInt64(count()) AS pools FROM pools GROUP BY chain_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS chain_totals_transfers_mv TO chain_totals AS
SELECT chain_id, toUInt64(count()) AS transfers FROM erc20_transfers GROUP BY chain_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS chain_totals_swaps_mv TO chain_totals AS
SELECT chain_id, toUInt64(count()) AS swaps, sum(weth_in + weth_out) AS weth_volume FROM swaps GROUP BY chain_id;

-- Every trader a chain has seen, by key: a batch's new traders are the ones not found here.
CREATE TABLE IF NOT EXISTS chain_traders
(
    chain_id UInt32,
    trader   String
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, trader)
SETTINGS non_replicated_deduplication_window = 10000;

-- This database's identity: API processes sharing a Redis share cached rows only with processes
-- of the same database (a Redis may serve several deployments or test runs).
CREATE TABLE IF NOT EXISTS serving_identity
(
    id UUID
)
ENGINE = ReplacingMergeTree
ORDER BY id;

INSERT INTO serving_identity SELECT generateUUIDv4() WHERE (SELECT count() FROM serving_identity) = 0;
