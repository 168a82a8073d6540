-- Raw chain tables. Every row has a natural unique key (chain, block, log index; or chain,
-- address), and ReplacingMergeTree on that key. Exactly-once in effect comes from per-batch
-- insert deduplication tokens; non_replicated_deduplication_window must be set here AND on
-- every materialized-view target, or a retried batch multiplies the aggregates.
-- Addresses and hashes are lowercase 0x hex strings; wei amounts are UInt256.

CREATE TABLE IF NOT EXISTS chain_blocks
(
    chain_id    UInt32,
    number      UInt64,
    hash        String,
    parent_hash String,
    timestamp   DateTime('UTC'),
    log_count   UInt32,
    ingested_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, number)
SETTINGS non_replicated_deduplication_window = 10000;

-- A contract created by a transaction without `to`; deployer = that transaction's `from`.
CREATE TABLE IF NOT EXISTS contract_creations
(
    chain_id     UInt32,
    address      String,
    deployer     String,
    block_number UInt64,
    tx_index     UInt32,
    tx_hash      String,
    created_at   DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, address)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS erc20_transfers
(
    chain_id     UInt32,
    block_number UInt64,
    log_index    UInt32,
    tx_hash      String,
    token        String,
    from_address String,
    to_address   String,
    value        UInt256,
    block_time   DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, block_number, log_index)
SETTINGS non_replicated_deduplication_window = 10000;

-- Pools of every protocol we follow (v2 pairs now; v3/v4 pools later).
CREATE TABLE IF NOT EXISTS pools
(
    chain_id     UInt32,
    pool         String,
    protocol     LowCardinality(String),
    factory      String,
    token0       String,
    token1       String,
    block_number UInt64,
    log_index    UInt32,
    created_at   DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, pool)
SETTINGS non_replicated_deduplication_window = 10000;

-- One row per pool swap event against WETH. `token` is the non-WETH side; trader = tx.from.
-- WETH volume of a swap = weth_in + weth_out (DESIGN §7).
CREATE TABLE IF NOT EXISTS swaps
(
    chain_id     UInt32,
    block_number UInt64,
    log_index    UInt32,
    tx_hash      String,
    pool         String,
    protocol     LowCardinality(String),
    token        String,
    trader       String,
    token_in     UInt256,
    token_out    UInt256,
    weth_in      UInt256,
    weth_out     UInt256,
    block_time   DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, block_number, log_index)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS pool_reserves
(
    chain_id     UInt32,
    block_number UInt64,
    log_index    UInt32,
    pool         String,
    reserve0     UInt256,
    reserve1     UInt256,
    block_time   DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, block_number, log_index)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS liquidity_events
(
    chain_id     UInt32,
    block_number UInt64,
    log_index    UInt32,
    tx_hash      String,
    pool         String,
    kind         Enum8('mint' = 1, 'burn' = 2),
    provider     String,
    amount0      UInt256,
    amount1      UInt256,
    block_time   DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, block_number, log_index)
SETTINGS non_replicated_deduplication_window = 10000;
