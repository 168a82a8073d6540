-- Token state for chain products: metadata, launches (the feed), per-block activity for the
-- exact is_real crossing, latest swap for price quotes, supply for FDV, pool liquidity for
-- "dead", ETH/USD candles, and the reorg log.

ALTER TABLE contract_creations ADD COLUMN IF NOT EXISTS name String DEFAULT '';
ALTER TABLE contract_creations ADD COLUMN IF NOT EXISTS symbol String DEFAULT '';
ALTER TABLE contract_creations ADD COLUMN IF NOT EXISTS decimals Nullable(UInt8);

-- Liquidity in the units of its protocol (v2: the WETH amount of a Mint/Burn; v3: the L amount;
-- v4: |liquidityDelta|), so that "more than 90% removed" compares like with like per pool.
ALTER TABLE liquidity_events ADD COLUMN IF NOT EXISTS liquidity UInt256 DEFAULT 0;

-- A launch: a token's first WETH pool. visible_at is when it entered our feed, strictly
-- increasing per chain, and is the feed cursor.
CREATE TABLE IF NOT EXISTS launches
(
    chain_id     UInt32,
    token        String,
    pool         String,
    protocol     LowCardinality(String),
    block_number UInt64,
    launched_at  DateTime('UTC'),
    visible_at   DateTime64(6, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, token)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS token_block_activity
(
    chain_id     UInt32,
    token        String,
    block_number UInt64,
    swaps        UInt64,
    weth_volume  UInt256
)
ENGINE = SummingMergeTree
ORDER BY (chain_id, token, block_number)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_block_activity_mv TO token_block_activity AS
SELECT chain_id, token, block_number, toUInt64(count()) AS swaps, sum(weth_in + weth_out) AS weth_volume
FROM swaps
GROUP BY chain_id, token, block_number;

CREATE TABLE IF NOT EXISTS token_trader_first
(
    chain_id    UInt32,
    token       String,
    trader      String,
    first_block SimpleAggregateFunction(min, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY (chain_id, token, trader)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_trader_first_mv TO token_trader_first AS
SELECT chain_id, token, trader, min(block_number) AS first_block
FROM swaps
GROUP BY chain_id, token, trader;

-- The block in which a token first met the "real" thresholds. Written by the processor after
-- each batch for the tokens the batch touched (sql/queries/refresh_token_real.sql).
CREATE TABLE IF NOT EXISTS token_real
(
    chain_id   UInt32,
    token      String,
    real_block UInt64,
    real_at    DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, token);

CREATE TABLE IF NOT EXISTS token_last_swap
(
    chain_id   UInt32,
    token      String,
    last_key   SimpleAggregateFunction(max, Tuple(UInt64, UInt32)),
    quote      AggregateFunction(argMax, Tuple(UInt256, UInt256, String, DateTime('UTC'), UInt64), Tuple(UInt64, UInt32))
)
ENGINE = AggregatingMergeTree
ORDER BY (chain_id, token)
SETTINGS non_replicated_deduplication_window = 10000;

-- The quote is (weth amount, token amount, pool, time, block) of the latest swap.
CREATE MATERIALIZED VIEW IF NOT EXISTS token_last_swap_mv TO token_last_swap AS
SELECT
    chain_id,
    token,
    max((block_number, log_index)) AS last_key,
    argMaxState((weth_in + weth_out, token_in + token_out, pool, block_time, block_number), (block_number, log_index)) AS quote
FROM swaps
WHERE token_in + token_out > 0
GROUP BY chain_id, token;

CREATE TABLE IF NOT EXISTS token_supply
(
    chain_id UInt32,
    token    String,
    minted   UInt256,
    burned   UInt256
)
ENGINE = SummingMergeTree
ORDER BY (chain_id, token)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_supply_mv TO token_supply AS
SELECT
    chain_id,
    token,
    sumIf(value, from_address = '0x0000000000000000000000000000000000000000') AS minted,
    sumIf(value, to_address = '0x0000000000000000000000000000000000000000') AS burned
FROM erc20_transfers
WHERE from_address = '0x0000000000000000000000000000000000000000' OR to_address = '0x0000000000000000000000000000000000000000'
GROUP BY chain_id, token;

CREATE TABLE IF NOT EXISTS pool_liquidity
(
    chain_id UInt32,
    pool     String,
    added    UInt256,
    removed  UInt256
)
ENGINE = SummingMergeTree
ORDER BY (chain_id, pool)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS pool_liquidity_mv TO pool_liquidity AS
SELECT chain_id, pool, sumIf(liquidity, kind = 'mint') AS added, sumIf(liquidity, kind = 'burn') AS removed
FROM liquidity_events
GROUP BY chain_id, pool;

CREATE TABLE IF NOT EXISTS price_candles
(
    pair   LowCardinality(String),
    minute DateTime('UTC'),
    open   Decimal(38, 8),
    high   Decimal(38, 8),
    low    Decimal(38, 8),
    close  Decimal(38, 8)
)
ENGINE = ReplacingMergeTree
ORDER BY (pair, minute)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS chain_reorgs
(
    chain_id    UInt32,
    from_block  UInt64,
    old_hash    String,
    new_hash    String,
    detected_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = MergeTree
ORDER BY (chain_id, detected_at);
