-- The composite products (issue 13): /pulse reads per-minute aggregates by key, /agent/features
-- reads a pool's first liquidity by key, and /basket and /proof.json read verdicts recorded 15
-- minutes after each launch (chain clock) and their forward marks, recorded as chain time passes.

-- Per token and chain-clock minute: the short windows of /pulse are at most 120 keyed rows.
CREATE TABLE IF NOT EXISTS token_minute_activity
(
    chain_id    UInt32 COMMENT 'chain id',
    token       String COMMENT 'token address (lowercase)',
    minute      DateTime('UTC') COMMENT 'chain-clock minute: toStartOfMinute of the block time of the swaps',
    swaps       SimpleAggregateFunction(sum, UInt64) COMMENT 'swap events against WETH pools in the minute',
    weth_volume SimpleAggregateFunction(sum, UInt256) COMMENT 'WETH in plus WETH out of those swaps, exact wei',
    traders     AggregateFunction(uniqExact, String) COMMENT 'distinct transaction senders of the swaps',
    buyers      AggregateFunction(uniqExact, String) COMMENT 'distinct senders of swaps that paid WETH into the pool (bought the token)',
    sellers     AggregateFunction(uniqExact, String) COMMENT 'distinct senders of swaps that took WETH out of the pool (sold the token)',
    last_quote  AggregateFunction(argMax, Tuple(UInt256, UInt256, UInt64), Tuple(UInt64, UInt32)) COMMENT 'latest swap of the minute: (WETH amount wei, token amount base units, block), by (block, log index)'
)
ENGINE = AggregatingMergeTree
ORDER BY (chain_id, token, minute)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'Swap activity per token and chain-clock minute (issue 13, /pulse): one keyed range read per window';

CREATE MATERIALIZED VIEW IF NOT EXISTS token_minute_activity_mv TO token_minute_activity AS
SELECT
    chain_id,
    token,
    toStartOfMinute(block_time) AS minute,
    toUInt64(count()) AS swaps,
    sum(weth_in + weth_out) AS weth_volume,
    uniqExactState(trader) AS traders,
    uniqExactStateIf(trader, weth_in > 0) AS buyers,
    uniqExactStateIf(trader, weth_in = 0 AND weth_out > 0) AS sellers,
    argMaxStateIf((weth_in + weth_out, token_in + token_out, block_number), (block_number, log_index), token_in + token_out > 0) AS last_quote
FROM swaps
GROUP BY chain_id, token, minute;

INSERT INTO token_minute_activity
SELECT chain_id, token, toStartOfMinute(block_time) AS minute, toUInt64(count()), sum(weth_in + weth_out), uniqExactState(trader),
       uniqExactStateIf(trader, weth_in > 0), uniqExactStateIf(trader, weth_in = 0 AND weth_out > 0),
       argMaxStateIf((weth_in + weth_out, token_in + token_out, block_number), (block_number, log_index), token_in + token_out > 0)
FROM swaps FINAL
WHERE (SELECT count() FROM token_minute_activity) = 0
GROUP BY chain_id, token, minute;

-- Per pool and chain-clock minute: the liquidity change of a launch pool over the /pulse windows.
CREATE TABLE IF NOT EXISTS pool_liquidity_minute
(
    chain_id UInt32 COMMENT 'chain id',
    pool     String COMMENT 'pool address (v4: pool id)',
    minute   DateTime('UTC') COMMENT 'chain-clock minute of the liquidity events',
    added    UInt256 COMMENT 'liquidity added in the minute, in the pool protocol units (v2: WETH wei of the Mint; v3: L; v4: |liquidityDelta|)',
    removed  UInt256 COMMENT 'liquidity removed in the minute, same units'
)
ENGINE = SummingMergeTree
ORDER BY (chain_id, pool, minute)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'Liquidity added and removed per pool and chain-clock minute (issue 13, /pulse)';

CREATE MATERIALIZED VIEW IF NOT EXISTS pool_liquidity_minute_mv TO pool_liquidity_minute AS
SELECT chain_id, pool, toStartOfMinute(block_time) AS minute, sumIf(liquidity, kind = 'mint') AS added, sumIf(liquidity, kind = 'burn') AS removed
FROM liquidity_events
GROUP BY chain_id, pool, minute;

INSERT INTO pool_liquidity_minute
SELECT chain_id, pool, toStartOfMinute(block_time) AS minute, sumIf(liquidity, kind = 'mint'), sumIf(liquidity, kind = 'burn')
FROM liquidity_events FINAL
WHERE (SELECT count() FROM pool_liquidity_minute) = 0
GROUP BY chain_id, pool, minute;

-- The first liquidity of each pool (its initial liquidity), by key.
CREATE TABLE IF NOT EXISTS pool_first_mint
(
    chain_id UInt32 COMMENT 'chain id',
    pool     String COMMENT 'pool address (v4: pool id)',
    first    AggregateFunction(argMin, Tuple(UInt256, UInt256, UInt256, String, UInt64, DateTime('UTC')), Tuple(UInt64, UInt32)) COMMENT 'first mint by (block, log index): (amount0, amount1 in base units, liquidity in protocol units, provider, block, block time)'
)
ENGINE = AggregatingMergeTree
ORDER BY (chain_id, pool)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'The first liquidity added to each pool (issue 13, /agent/features identity.initial_liquidity)';

CREATE MATERIALIZED VIEW IF NOT EXISTS pool_first_mint_mv TO pool_first_mint AS
SELECT chain_id, pool, argMinState((amount0, amount1, liquidity, provider, block_number, block_time), (block_number, log_index)) AS first
FROM liquidity_events
WHERE kind = 'mint'
GROUP BY chain_id, pool;

INSERT INTO pool_first_mint
SELECT chain_id, pool, argMinState((amount0, amount1, liquidity, provider, block_number, block_time), (block_number, log_index))
FROM liquidity_events FINAL
WHERE kind = 'mint' AND (SELECT count() FROM pool_first_mint) = 0
GROUP BY chain_id, pool;

-- Mentions per token and posting minute: /pulse's mention windows (mention_hourly is hourly).
CREATE TABLE IF NOT EXISTS mention_minute
(
    token   String COMMENT 'token address (lowercase)',
    minute  DateTime('UTC') COMMENT 'toStartOfMinute(posted_at): the posting minute',
    posts   AggregateFunction(uniqExact, UInt64) COMMENT 'distinct posts (sipHash64 of post id)',
    authors AggregateFunction(groupUniqArray, String) COMMENT 'the distinct accounts that posted (mutual-follow clusters are collapsed when read)'
)
ENGINE = AggregatingMergeTree
ORDER BY (token, minute)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'Mentions per token and posting minute (issue 13, /pulse)';

CREATE MATERIALIZED VIEW IF NOT EXISTS mention_minute_mv TO mention_minute AS
SELECT token, toStartOfMinute(posted_at) AS minute, uniqExactState(sipHash64(post_id)) AS posts, groupUniqArrayState(author) AS authors
FROM mentions
WHERE token != ''
GROUP BY token, minute;

INSERT INTO mention_minute
SELECT token, toStartOfMinute(posted_at) AS minute, uniqExactState(sipHash64(post_id)), groupUniqArrayState(author)
FROM mentions
WHERE token != '' AND (SELECT count() FROM mention_minute) = 0
GROUP BY token, minute;

-- Launches in chain-time order: the launches whose +15 min verdict falls due are a range read.
CREATE TABLE IF NOT EXISTS launches_by_time
(
    chain_id     UInt32 COMMENT 'chain id',
    launched_at  DateTime('UTC') COMMENT 'block time of the launch (the token''s first WETH pool)',
    token        String COMMENT 'token address',
    block_number UInt64 COMMENT 'launch block'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, launched_at, token)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'Launches ordered by chain time (issue 13): which launches reach +15 min in a batch is one range read';

CREATE MATERIALIZED VIEW IF NOT EXISTS launches_by_time_mv TO launches_by_time AS
SELECT chain_id, launched_at, token, block_number FROM launches;

INSERT INTO launches_by_time
SELECT chain_id, launched_at, token, block_number FROM launches FINAL
WHERE (SELECT count() FROM launches_by_time) = 0;

-- The verdict of each launch taken once, by the pipeline, in the first served batch whose chain
-- time reaches launch + 15 min. Never updated; a reorg below taken_block deletes it (it was taken
-- on an orphaned chain) and the new chain's batch takes it again.
CREATE TABLE IF NOT EXISTS launch_verdicts
(
    chain_id         UInt32 COMMENT 'chain id',
    launched_at      DateTime('UTC') COMMENT 'block time of the launch',
    token            String COMMENT 'token address',
    symbol           String COMMENT 'token symbol at the time the verdict was taken',
    deployer         String COMMENT 'deployer address ('''' when the creation was not observed)',
    launch_block     UInt64 COMMENT 'launch block',
    due_at           DateTime('UTC') COMMENT 'launched_at + 900 s: the chain time the verdict is due at',
    taken_block      UInt64 COMMENT 'the served block (watermark) at which it was taken',
    taken_at         DateTime('UTC') COMMENT 'block time of taken_block (chain clock)',
    lag_seconds      UInt32 COMMENT 'taken_at - due_at: how much later than +15 min the inputs were read',
    signal           LowCardinality(String) COMMENT 'verdict signal: low_risk, moderate_risk, high_risk, avoid',
    confidence       Float64 COMMENT 'verdict confidence in [0, 1]',
    reasons          String COMMENT 'the verdict reasons as JSON: [{code, signal, measured}]',
    quoted           UInt8 COMMENT '1 when the token had a price (a swap) when the verdict was taken',
    entry_weth       UInt256 COMMENT 'WETH amount (wei) of the latest swap at taken_block: the entry price numerator',
    entry_token      UInt256 COMMENT 'token amount (base units) of that swap: the entry price denominator',
    entry_price_weth String COMMENT 'entry price: WETH per whole token, decimal string',
    entry_quote_block UInt64 COMMENT 'block of the swap the entry price comes from',
    decimals         UInt8 COMMENT 'token decimals used for the price (18 when unknown)'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, launched_at, token)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'The verdict of each launch recorded 15 minutes after launch (chain clock), append-only (issue 13: /basket, /proof.json)';

-- Forward marks of each recorded verdict at +1 h, +24 h and +7 d after its due time, taken once
-- as chain time passes them.
CREATE TABLE IF NOT EXISTS launch_marks
(
    chain_id     UInt32 COMMENT 'chain id',
    horizon      LowCardinality(String) COMMENT 'mark horizon after the verdict''s due time: 1h, 24h or 7d',
    launched_at  DateTime('UTC') COMMENT 'block time of the launch',
    token        String COMMENT 'token address',
    signal       LowCardinality(String) COMMENT 'the recorded +15 min verdict signal of the token (copied, never recomputed)',
    due_at       DateTime('UTC') COMMENT 'verdict due_at + the horizon: when the mark is due',
    marked_block UInt64 COMMENT 'the served block at which the mark was taken',
    marked_at    DateTime('UTC') COMMENT 'block time of marked_block (chain clock)',
    quoted       UInt8 COMMENT '1 when the token had a price at the mark',
    mark_weth    UInt256 COMMENT 'WETH amount (wei) of the latest swap at marked_block',
    mark_token   UInt256 COMMENT 'token amount (base units) of that swap',
    price_weth   String COMMENT 'mark price: WETH per whole token, decimal string',
    forward_return Nullable(Float64) COMMENT 'mark price / entry price - 1 (null without an entry or mark price)',
    is_real      UInt8 COMMENT '1 when the token was real at the mark',
    dead         LowCardinality(String) COMMENT 'dead reason at the mark (liquidity_removed, idle_72h) or empty'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, horizon, launched_at, token)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'Forward marks (1h, 24h, 7d) of the recorded +15 min verdicts, taken when chain time passes them (issue 13)';
