-- The serving refresh reads token_activity, token_last_swap, token_supply and pool_liquidity
-- for the few tokens (and their pools) a batch touched. Their rows carry aggregate states (a token's distinct traders, its last quote), and
-- ClickHouse reads a whole granule to find one key: with the default 8192 rows a granule, every
-- touched token cost 8192 deserialized states. 256-row granules make a keyed read cost about
-- the token's own row, whatever the number of tokens. index_granularity cannot be altered, so
-- each table is rebuilt under its name and its view recreated as migrations 003 and 004 define it.

CREATE TABLE IF NOT EXISTS token_activity_fine AS token_activity
ENGINE = AggregatingMergeTree
ORDER BY (chain_id, token)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000;

DROP VIEW IF EXISTS token_activity_mv;

INSERT INTO token_activity_fine SELECT * FROM token_activity WHERE (SELECT count() FROM token_activity_fine) = 0;

RENAME TABLE token_activity TO token_activity_coarse, token_activity_fine TO token_activity;

DROP TABLE IF EXISTS token_activity_coarse;

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

CREATE TABLE IF NOT EXISTS token_last_swap_fine AS token_last_swap
ENGINE = AggregatingMergeTree
ORDER BY (chain_id, token)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000;

DROP VIEW IF EXISTS token_last_swap_mv;

INSERT INTO token_last_swap_fine SELECT * FROM token_last_swap WHERE (SELECT count() FROM token_last_swap_fine) = 0;

RENAME TABLE token_last_swap TO token_last_swap_coarse, token_last_swap_fine TO token_last_swap;

DROP TABLE IF EXISTS token_last_swap_coarse;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_last_swap_mv TO token_last_swap AS
SELECT
    chain_id,
    token,
    max((block_number, log_index)) AS last_key,
    argMaxState((weth_in + weth_out, token_in + token_out, pool, block_time, block_number), (block_number, log_index)) AS quote
FROM swaps
WHERE token_in + token_out > 0
GROUP BY chain_id, token;

CREATE TABLE IF NOT EXISTS token_supply_fine AS token_supply
ENGINE = SummingMergeTree
ORDER BY (chain_id, token)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000;

DROP VIEW IF EXISTS token_supply_mv;

INSERT INTO token_supply_fine SELECT * FROM token_supply WHERE (SELECT count() FROM token_supply_fine) = 0;

RENAME TABLE token_supply TO token_supply_coarse, token_supply_fine TO token_supply;

DROP TABLE IF EXISTS token_supply_coarse;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_supply_mv TO token_supply AS
SELECT
    chain_id,
    token,
    sumIf(value, from_address = '0x0000000000000000000000000000000000000000') AS minted,
    sumIf(value, to_address = '0x0000000000000000000000000000000000000000') AS burned
FROM erc20_transfers
WHERE from_address = '0x0000000000000000000000000000000000000000' OR to_address = '0x0000000000000000000000000000000000000000'
GROUP BY chain_id, token;

CREATE TABLE IF NOT EXISTS pool_liquidity_fine AS pool_liquidity
ENGINE = SummingMergeTree
ORDER BY (chain_id, pool)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000;

DROP VIEW IF EXISTS pool_liquidity_mv;

INSERT INTO pool_liquidity_fine SELECT * FROM pool_liquidity WHERE (SELECT count() FROM pool_liquidity_fine) = 0;

RENAME TABLE pool_liquidity TO pool_liquidity_coarse, pool_liquidity_fine TO pool_liquidity;

DROP TABLE IF EXISTS pool_liquidity_coarse;

CREATE MATERIALIZED VIEW IF NOT EXISTS pool_liquidity_mv TO pool_liquidity AS
SELECT chain_id, pool, sumIf(liquidity, kind = 'mint') AS added, sumIf(liquidity, kind = 'burn') AS removed
FROM liquidity_events
GROUP BY chain_id, pool;
