-- Holder structure (issue 11): exact token balances kept by views over erc20_transfers, so that a
-- token's holders and every holder's balance as of any block are keyed reads.
--
--   holder_balances  (chain_id, token, wallet)               current balance, summed as transfers arrive
--   holder_deltas    (chain_id, token, block_number, wallet) net change per block
--
-- Balance of a wallet at block B = holder_balances − Σ holder_deltas of blocks above B: one read
-- of the token's current balances plus one range read of its deltas after B (small for the
-- recent blocks the 24 h diff needs). The zero address is never a holder (its rows are not kept).
-- A reorg deletes the affected tokens' rows of both tables and replays their surviving
-- transfers through these views (pipelines/process/chain-rollback.ts).

CREATE TABLE IF NOT EXISTS holder_deltas
(
    chain_id     UInt32 COMMENT 'chain id (4663)',
    token        String COMMENT 'ERC20 token contract, lowercase 0x hex',
    block_number UInt64 COMMENT 'block whose transfers made the change',
    wallet       String COMMENT 'holder address, lowercase 0x hex; never the zero address',
    delta        Int256 COMMENT 'net balance change of wallet in token in that block, in the token''s smallest unit (wei-exact)'
)
ENGINE = SummingMergeTree
ORDER BY (chain_id, token, block_number, wallet)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 10000
COMMENT 'Net token balance change per (token, block, wallet), from ERC20 Transfer logs; a token''s changes over a block range are one range read';

CREATE MATERIALIZED VIEW IF NOT EXISTS holder_deltas_mv TO holder_deltas AS
SELECT chain_id, token, block_number, side.1 AS wallet, side.2 AS delta
FROM erc20_transfers
ARRAY JOIN [(from_address, -toInt256(value)), (to_address, toInt256(value))] AS side
WHERE side.1 != '0x0000000000000000000000000000000000000000';

CREATE TABLE IF NOT EXISTS holder_balances
(
    chain_id UInt32 COMMENT 'chain id (4663)',
    token    String COMMENT 'ERC20 token contract, lowercase 0x hex',
    wallet   String COMMENT 'holder address (pools included, listed apart when read), lowercase 0x hex; never the zero address',
    balance  Int256 COMMENT 'balance through the last ingested block, in the token''s smallest unit (wei-exact); sum the rows of a key (SummingMergeTree)'
)
ENGINE = SummingMergeTree
ORDER BY (chain_id, token, wallet)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 10000
COMMENT 'Current token balance per (token, wallet), kept by a view over holder_deltas; a token''s holders are one keyed read';

-- Fed by the deltas (a view on the first view's target): one ARRAY JOIN per transfer, not two.
CREATE MATERIALIZED VIEW IF NOT EXISTS holder_balances_mv TO holder_balances AS
SELECT chain_id, token, wallet, delta AS balance FROM holder_deltas;

-- The history before this migration: through holder_deltas, whose view fills holder_balances.
INSERT INTO holder_deltas
SELECT chain_id, token, block_number, side.1 AS wallet, side.2 AS delta
FROM (SELECT * FROM erc20_transfers FINAL)
ARRAY JOIN [(from_address, -toInt256(value)), (to_address, toInt256(value))] AS side
WHERE side.1 != '0x0000000000000000000000000000000000000000' AND (SELECT count() FROM holder_deltas) = 0;

-- Which wallets exchanged a token directly (both directions): the entity rule
-- (core/domain/holder-labels.ts) follows the off-market edges of the wallets it labels by key.
CREATE TABLE IF NOT EXISTS token_wallet_links
(
    chain_id    UInt32 COMMENT 'chain id (4663)',
    token       String COMMENT 'ERC20 token contract, lowercase 0x hex',
    wallet      String COMMENT 'one side of a transfer of token, lowercase 0x hex',
    peer        String COMMENT 'the other side, lowercase 0x hex (a pool when the transfer was a trade)',
    first_block SimpleAggregateFunction(min, UInt64) COMMENT 'first block with a transfer between wallet and peer',
    transfers   SimpleAggregateFunction(sum, UInt64) COMMENT 'transfers between wallet and peer, either direction'
)
ENGINE = AggregatingMergeTree
ORDER BY (chain_id, token, wallet, peer)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 10000
COMMENT 'Transfer counterparties per (token, wallet), both directions, zero address excluded; read by key to link wallets into entities';

CREATE MATERIALIZED VIEW IF NOT EXISTS token_wallet_links_mv TO token_wallet_links AS
SELECT chain_id, token, pair.1 AS wallet, pair.2 AS peer, min(block_number) AS first_block, toUInt64(count()) AS transfers
FROM erc20_transfers
ARRAY JOIN [(from_address, to_address), (to_address, from_address)] AS pair
WHERE from_address != to_address
  AND from_address != '0x0000000000000000000000000000000000000000' AND to_address != '0x0000000000000000000000000000000000000000'
GROUP BY chain_id, token, wallet, peer;

INSERT INTO token_wallet_links
SELECT chain_id, token, pair.1 AS wallet, pair.2 AS peer, min(block_number) AS first_block, toUInt64(count()) AS transfers
FROM (SELECT * FROM erc20_transfers FINAL)
ARRAY JOIN [(from_address, to_address), (to_address, from_address)] AS pair
WHERE from_address != to_address
  AND from_address != '0x0000000000000000000000000000000000000000' AND to_address != '0x0000000000000000000000000000000000000000'
  AND (SELECT count() FROM token_wallet_links) = 0
GROUP BY chain_id, token, wallet, peer;

-- A token's pools by key (pools is ordered by pool): pools are not holders. A v4 pool is an id;
-- its tokens sit in the PoolManager, which is listed instead.
CREATE TABLE IF NOT EXISTS token_pools
(
    chain_id     UInt32 COMMENT 'chain id (4663)',
    token        String COMMENT 'one side of the pool, lowercase 0x hex',
    pool         String COMMENT 'the address holding the pool''s tokens, lowercase 0x hex: the pool (v2, v3) or the PoolManager (v4, whose pools are ids)',
    protocol     LowCardinality(String) COMMENT 'pool protocol (v2, v3, v4)',
    block_number UInt64 COMMENT 'block the pool was created in'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, token, pool)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'Pools per token (each pool listed under both of its tokens), kept by a view over pools';

CREATE MATERIALIZED VIEW IF NOT EXISTS token_pools_mv TO token_pools AS
SELECT chain_id, side AS token, if(protocol = 'v4', factory, pool) AS pool, protocol, block_number
FROM pools
ARRAY JOIN [token0, token1] AS side;

INSERT INTO token_pools
SELECT chain_id, side AS token, if(protocol = 'v4', factory, pool) AS pool, protocol, block_number
FROM pools FINAL
ARRAY JOIN [token0, token1] AS side
WHERE (SELECT count() FROM token_pools) = 0;

-- Blocks by time: the 24 h diff's baseline (the latest block at most 86,400 s before the window
-- end) is one read in reverse key order, not a scan of chain_blocks.
CREATE TABLE IF NOT EXISTS block_times
(
    chain_id  UInt32 COMMENT 'chain id',
    timestamp DateTime('UTC') COMMENT 'block timestamp',
    number    UInt64 COMMENT 'block number'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, timestamp, number)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 10000
COMMENT 'Ingested blocks ordered by timestamp, kept by a view over chain_blocks';

CREATE MATERIALIZED VIEW IF NOT EXISTS block_times_mv TO block_times AS
SELECT chain_id, timestamp, number FROM chain_blocks;

INSERT INTO block_times
SELECT chain_id, timestamp, number FROM chain_blocks FINAL
WHERE (SELECT count() FROM block_times) = 0;
