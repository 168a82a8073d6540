-- Per-token activity kept current by a materialized view over swaps:
-- swap count, WETH volume (wei, exact) and distinct traders.
CREATE TABLE IF NOT EXISTS token_activity
(
    chain_id         UInt32,
    token            String,
    swaps            SimpleAggregateFunction(sum, UInt64),
    weth_volume      SimpleAggregateFunction(sum, UInt256),
    traders          AggregateFunction(uniqExact, String),
    first_swap_block SimpleAggregateFunction(min, UInt64),
    last_swap_block  SimpleAggregateFunction(max, UInt64),
    last_swap_time   SimpleAggregateFunction(max, DateTime('UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (chain_id, token)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_activity_mv TO token_activity AS
SELECT
    chain_id,
    token,
    toUInt64(count())             AS swaps,
    sum(weth_in + weth_out)       AS weth_volume,
    uniqExactState(trader)        AS traders,
    min(block_number)             AS first_swap_block,
    max(block_number)             AS last_swap_block,
    max(block_time)               AS last_swap_time
FROM swaps
GROUP BY chain_id, token;
