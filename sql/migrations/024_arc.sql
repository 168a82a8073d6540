-- The second chain (5042) under /arc: launches attributed to launchpads and factories by the
-- ABI-free rule (DESIGN §7), first pools, activity. Rows are written by the chain processor
-- (pipelines/process/arc-rows.ts) for a chain whose follow list names launchpads/factories.
-- Every row carries its block, so every /arc answer reads "as of block W" (block_number <= W)
-- and a reorg deletes rows at or above the fork (pipelines/process/chain-rollback.ts).
-- Counters are cumulative per key and block: the state of a key at W is its last row <= W,
-- one keyed read, never a pass over history.

CREATE TABLE IF NOT EXISTS arc_launches
(
    chain_id     UInt32 COMMENT 'chain id (5042)',
    token        String COMMENT 'token contract address, lowercase 0x hex',
    block_number UInt64 COMMENT 'block of the launch transaction (the token''s creation or first mint, whichever came first)',
    tx_index     UInt32 COMMENT 'index of the launch transaction in its block',
    tx_hash      String COMMENT 'the launch transaction',
    launched_at  DateTime('UTC') COMMENT 'block time of the launch, UTC',
    deployer     String COMMENT '`from` of the launch transaction',
    via          String COMMENT 'the launchpad or factory the launch went through (the tx was sent to it or holds a log it emitted); empty for a direct launch',
    via_kind     LowCardinality(String) COMMENT 'pad, factory or direct',
    symbol       String COMMENT 'ERC20 symbol read at launch (empty when unreadable)',
    symbol_lower String COMMENT 'lower-cased symbol, the same-symbol lookup key',
    name         String COMMENT 'ERC20 name read at launch (empty when unreadable)'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, token)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'One row per launched token of an attributed chain (5042), keyed by token: /arc/report';

-- The same rows kept for the other access paths: launch order (feed), per pad or factory
-- (feed via=), per deployer, per symbol.
CREATE TABLE IF NOT EXISTS arc_launches_by_block AS arc_launches
ENGINE = ReplacingMergeTree ORDER BY (chain_id, block_number, tx_index, token)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'arc_launches in launch order (block, tx index, token): /arc/feed/new pages by before_block';

CREATE MATERIALIZED VIEW IF NOT EXISTS arc_launches_by_block_mv TO arc_launches_by_block AS SELECT * FROM arc_launches COMMENT 'keeps arc_launches_by_block (a copy of arc_launches for another access path) as rows arrive';

CREATE TABLE IF NOT EXISTS arc_launches_by_via AS arc_launches
ENGINE = ReplacingMergeTree ORDER BY (chain_id, via, block_number, tx_index, token)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'arc_launches per launchpad or factory in launch order: /arc/feed/new?via=';

CREATE MATERIALIZED VIEW IF NOT EXISTS arc_launches_by_via_mv TO arc_launches_by_via AS SELECT * FROM arc_launches COMMENT 'keeps arc_launches_by_via (a copy of arc_launches for another access path) as rows arrive';

CREATE TABLE IF NOT EXISTS arc_launches_by_deployer AS arc_launches
ENGINE = ReplacingMergeTree ORDER BY (chain_id, deployer, block_number, tx_index, token)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'arc_launches per deployer in launch order: /arc/deployer';

CREATE MATERIALIZED VIEW IF NOT EXISTS arc_launches_by_deployer_mv TO arc_launches_by_deployer AS SELECT * FROM arc_launches COMMENT 'keeps arc_launches_by_deployer (a copy of arc_launches for another access path) as rows arrive';

CREATE TABLE IF NOT EXISTS arc_launches_by_symbol AS arc_launches
ENGINE = ReplacingMergeTree ORDER BY (chain_id, symbol_lower, token)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'arc_launches per lower-cased symbol: same_symbol of /arc/report';

CREATE MATERIALIZED VIEW IF NOT EXISTS arc_launches_by_symbol_mv TO arc_launches_by_symbol AS SELECT * FROM arc_launches COMMENT 'keeps arc_launches_by_symbol (a copy of arc_launches for another access path) as rows arrive';

CREATE TABLE IF NOT EXISTS arc_first_pools
(
    chain_id     UInt32 COMMENT 'chain id (5042)',
    token        String COMMENT 'launched token',
    pool         String COMMENT 'its first pool on a configured factory',
    factory      String COMMENT 'the factory that emitted PairCreated / PoolCreated',
    protocol     LowCardinality(String) COMMENT 'v2 (PairCreated) or v3 (PoolCreated)',
    other_token  String COMMENT 'the pool''s other token',
    block_number UInt64 COMMENT 'block the pool was created in',
    created_at   DateTime('UTC') COMMENT 'block time of the pool creation, UTC'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, token)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'A launched token''s first pool on a configured factory (one row per token), frozen at ingest';

CREATE TABLE IF NOT EXISTS arc_token_activity
(
    chain_id      UInt32 COMMENT 'chain id (5042)',
    token         String COMMENT 'launched token',
    block_number  UInt64 COMMENT 'a block in which the token had activity',
    block_time    DateTime('UTC') COMMENT 'that block''s time, UTC',
    via           String COMMENT 'the token''s launchpad or factory (empty: direct)',
    transfers     UInt32 COMMENT 'Transfer events of the token in this block',
    swaps         UInt32 COMMENT 'swaps on the token''s pools in this block',
    cum_transfers UInt64 COMMENT 'Transfer events of the token through this block',
    cum_swaps     UInt64 COMMENT 'swaps on the token''s pools through this block',
    cum_volume    UInt256 COMMENT 'token amount swapped on its pools through this block (in + out of the token side), base units',
    last_swap_block UInt64 COMMENT 'last block with a swap on its pools through this block (0: none)'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, token, block_number)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Cumulative activity of a launched token, one row per (token, block with activity): its state at W is its last row <= W';

CREATE TABLE IF NOT EXISTS arc_activity_by_block AS arc_token_activity
ENGINE = ReplacingMergeTree ORDER BY (chain_id, block_number, token)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'arc_token_activity in block order: which tokens traded in a recent window (tokens still trading)';

CREATE MATERIALIZED VIEW IF NOT EXISTS arc_activity_by_block_mv TO arc_activity_by_block AS SELECT * FROM arc_token_activity COMMENT 'keeps arc_activity_by_block (a copy of arc_token_activity for another access path) as rows arrive';

CREATE TABLE IF NOT EXISTS arc_balance_deltas
(
    chain_id     UInt32 COMMENT 'chain id (5042)',
    token        String COMMENT 'launched token',
    holder       String COMMENT 'an address whose balance changed (the zero address excluded)',
    block_number UInt64 COMMENT 'the block',
    delta        Int256 COMMENT 'net balance change in this block, base units'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, token, holder, block_number)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Net balance change per (token, holder, block) of launched tokens: distinct holders at W are one keyed read per token';

CREATE TABLE IF NOT EXISTS arc_venue_stats
(
    chain_id      UInt32 COMMENT 'chain id (5042)',
    via           String COMMENT 'launchpad or factory address; empty: direct launches; ''*'': all launches',
    block_number  UInt64 COMMENT 'a block in which the venue''s counts changed',
    cum_launches  UInt64 COMMENT 'tokens launched via it through this block',
    cum_pooled    UInt64 COMMENT 'of those, tokens with a first pool through this block',
    cum_deployers UInt64 COMMENT 'distinct deployers of those launches through this block'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, via, block_number)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Cumulative per-venue counts (pads, factories, direct, all): a venue at W is its last row <= W';

CREATE TABLE IF NOT EXISTS arc_deployer_venues
(
    chain_id     UInt32 COMMENT 'chain id (5042)',
    deployer     String COMMENT 'a deployer',
    via          String COMMENT 'a venue it launched through (empty: direct; ''*'': any)',
    block_number UInt64 COMMENT 'block of its first launch there'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, deployer, via)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'First launch of a deployer per venue: distinct-deployer counting at ingest, and pads_used';
