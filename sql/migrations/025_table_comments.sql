-- The table catalogue (docs/tables.md is generated from these): a COMMENT on every table and
-- column saying what a row is, units and keys. Tables of later migrations carry their own.
-- Statements are idempotent: an interrupted run re-applies the file whole.

ALTER TABLE account_clusters MODIFY COMMENT 'Each social account\'s mutual-follow cluster, newest version wins. Key: account.';
ALTER TABLE account_clusters
    COMMENT COLUMN account 'social handle, lowercase',
    COMMENT COLUMN cluster 'the cluster\'s id: its smallest handle (\'\' when the account is in none)',
    COMMENT COLUMN version 'row version: the highest wins on merge (ReplacingMergeTree)';

ALTER TABLE api_keys MODIFY COMMENT 'Subscription keys, hashed at rest (secret: not readable through ad-hoc SQL). Key: key_hash.';
ALTER TABLE api_keys
    COMMENT COLUMN key_hash 'SHA-256 hex of the subscription key (the key itself is never stored)',
    COMMENT COLUMN prefix 'svc_live_ plus 4 characters: names the key in lists and revocations',
    COMMENT COLUMN plan 'plan of the key (founders, signal_feed, desk, analyst)',
    COMMENT COLUMN created_at 'when the key was issued, UTC',
    COMMENT COLUMN revoked_at 'when the key was revoked, UTC (NULL: live)',
    COMMENT COLUMN version 'row version: the highest wins on merge (ReplacingMergeTree)';

ALTER TABLE call_grader_state MODIFY COMMENT 'The call grader\'s checkpoint, one row per chain, newest version wins.';
ALTER TABLE call_grader_state
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN graded_through 'call windows closed through this chain time are graded (unix seconds)',
    COMMENT COLUMN calls_noted 'calls noted through this database time are seen (unix ms)',
    COMMENT COLUMN real_noted 'tokens noted real through this database time are seen (unix ms)',
    COMMENT COLUMN reorgs_through 'reorgs detected through this database time are handled (unix ms)',
    COMMENT COLUMN version 'row version: the highest wins on merge (ReplacingMergeTree)';

ALTER TABLE call_grades MODIFY COMMENT 'Graded calls: a call whose hour has passed, with entry, exit, 1 h return and early/momentum class. Collapsing rows (sign). Key: author, token.';
ALTER TABLE call_grades
    COMMENT COLUMN author 'social handle of the account that posted, lowercase without @',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN called_at 'the call time: the author\'s first mention of the token, UTC',
    COMMENT COLUMN captured_at 'when the mention was captured by the service, UTC',
    COMMENT COLUMN post_id 'id of the social post',
    COMMENT COLUMN entry_price 'token price in WETH at the call (first swap at or after called_at)',
    COMMENT COLUMN entry_at 'time of the entry swap, UTC',
    COMMENT COLUMN exit_price 'token price in WETH one hour after the call',
    COMMENT COLUMN exit_at 'time of the exit swap, UTC',
    COMMENT COLUMN return_1h 'exit_price / entry_price - 1 (fraction)',
    COMMENT COLUMN run_at 'when the token ran (met the real thresholds), UTC (epoch when it has not)',
    COMMENT COLUMN early '1: the call came before the token turned real',
    COMMENT COLUMN momentum '1: the call came after the token turned real and still returned',
    COMMENT COLUMN graded_at 'when the grade was written, UTC',
    COMMENT COLUMN version 'row version: the highest wins on merge (ReplacingMergeTree)',
    COMMENT COLUMN sign 'collapsing sign: 1 a grade, -1 the cancellation of an earlier grade with the same values';

ALTER TABLE call_grades_by_token MODIFY COMMENT 'call_grades ordered by token (reads per token), kept by a view. Collapsing rows (sign). Key: token, author.';
ALTER TABLE call_grades_by_token
    COMMENT COLUMN author 'social handle of the account that posted, lowercase without @',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN called_at 'the call time: the author\'s first mention of the token, UTC',
    COMMENT COLUMN captured_at 'when the mention was captured by the service, UTC',
    COMMENT COLUMN post_id 'id of the social post',
    COMMENT COLUMN entry_price 'token price in WETH at the call (first swap at or after called_at)',
    COMMENT COLUMN entry_at 'time of the entry swap, UTC',
    COMMENT COLUMN exit_price 'token price in WETH one hour after the call',
    COMMENT COLUMN exit_at 'time of the exit swap, UTC',
    COMMENT COLUMN return_1h 'exit_price / entry_price - 1 (fraction)',
    COMMENT COLUMN run_at 'when the token ran (met the real thresholds), UTC (epoch when it has not)',
    COMMENT COLUMN early '1: the call came before the token turned real',
    COMMENT COLUMN momentum '1: the call came after the token turned real and still returned',
    COMMENT COLUMN graded_at 'when the grade was written, UTC',
    COMMENT COLUMN version 'row version: the highest wins on merge (ReplacingMergeTree)',
    COMMENT COLUMN sign 'collapsing sign: 1 a grade, -1 the cancellation of an earlier grade with the same values';

ALTER TABLE caller_changes MODIFY COMMENT 'What each caller refresh changed, in seq order: API processes drop exactly these keys from their caches.';
ALTER TABLE caller_changes
    COMMENT COLUMN seq 'change sequence, microseconds, always increasing',
    COMMENT COLUMN kind '\'caller\' (a caller_state row) or \'cluster\' (an account_clusters row)',
    COMMENT COLUMN key 'the changed author or account',
    COMMENT COLUMN at 'when the change was written, UTC';

ALTER TABLE caller_inputs_noted MODIFY COMMENT 'What changed a caller\'s inputs, by the time it was noted (kept a week). Key: noted_at, author.';
ALTER TABLE caller_inputs_noted
    COMMENT COLUMN noted_at 'when the row was noted, by the database clock (ms), UTC',
    COMMENT COLUMN author 'social handle of the account that posted, lowercase without @',
    COMMENT COLUMN source 'what changed: \'call\', \'grade\' or \'follow\'';

ALTER TABLE caller_mirrors MODIFY COMMENT 'Caller records of other chains (Solana, Base) mirrored from their sources. Key: chain, handle.';
ALTER TABLE caller_mirrors
    COMMENT COLUMN chain 'the chain the record is measured on (\'solana\', \'base\')',
    COMMENT COLUMN handle 'social handle, lowercase',
    COMMENT COLUMN calls 'graded calls',
    COMMENT COLUMN early_rate 'share of graded calls that were early (0..1)',
    COMMENT COLUMN momentum_rate 'share of graded calls that were momentum calls (0..1)',
    COMMENT COLUMN median_return_1h 'median 1 h return of the graded calls (fraction)',
    COMMENT COLUMN score 'caller score, 0..100',
    COMMENT COLUMN updated_at 'when the record was mirrored, UTC';

ALTER TABLE caller_state MODIFY COMMENT 'One row per caller, newest version wins: the graded record (counts, rates, score, grade) and its cluster. Key: author.';
ALTER TABLE caller_state
    COMMENT COLUMN author 'social handle of the account that posted, lowercase without @',
    COMMENT COLUMN calls 'distinct tokens called',
    COMMENT COLUMN graded 'graded calls',
    COMMENT COLUMN early 'early calls',
    COMMENT COLUMN momentum 'momentum calls',
    COMMENT COLUMN hits 'graded calls with a positive 1 h return',
    COMMENT COLUMN early_rate 'early / graded (0..1)',
    COMMENT COLUMN momentum_rate 'momentum / graded (0..1)',
    COMMENT COLUMN hit_rate 'hits / graded (0..1)',
    COMMENT COLUMN median_return_1h 'median 1 h return of the graded calls (fraction, NULL: none graded)',
    COMMENT COLUMN score 'caller score 0..100 (NULL: none graded)',
    COMMENT COLUMN grade 'letter grade (\'\' when none graded)',
    COMMENT COLUMN measured '1: enough graded calls for the record to be measured',
    COMMENT COLUMN cluster 'the author\'s mutual-follow cluster (\'\' when none)',
    COMMENT COLUMN version 'row version: the highest wins on merge (ReplacingMergeTree)';

ALTER TABLE caller_state_progress MODIFY COMMENT 'The caller refresher\'s checkpoint, newest version wins.';
ALTER TABLE caller_state_progress
    COMMENT COLUMN id 'always 0 (one row)',
    COMMENT COLUMN noted_through 'inputs noted through this database time are reflected (unix ms)',
    COMMENT COLUMN version 'row version: the highest wins on merge (ReplacingMergeTree)';

ALTER TABLE caller_stats MODIFY COMMENT 'Per-author sums kept by views over calls and call_grades (AggregatingMergeTree: merge with -Merge/sum). Key: author.';
ALTER TABLE caller_stats
    COMMENT COLUMN author 'social handle of the account that posted, lowercase without @',
    COMMENT COLUMN calls 'uniqExact state of the tokens called',
    COMMENT COLUMN graded 'sum of grade signs: graded calls',
    COMMENT COLUMN early 'sum: early calls',
    COMMENT COLUMN momentum 'sum: momentum calls',
    COMMENT COLUMN hits 'sum: calls with a positive 1 h return',
    COMMENT COLUMN returns 'sumMap state of 1 h returns to their signed counts (for the median)';

ALTER TABLE calls MODIFY COMMENT 'Calls: the first mention of a token by an author, kept by a view over mentions (AggregatingMergeTree). Key: author, token.';
ALTER TABLE calls
    COMMENT COLUMN author 'social handle of the account that posted, lowercase without @',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN called_at 'min: first mention, UTC',
    COMMENT COLUMN captured_at 'min: when the first mention was captured, UTC',
    COMMENT COLUMN first_post 'argMin state: the post of the first mention',
    COMMENT COLUMN mentions 'uniqExact state of the mentioning posts';

ALTER TABLE calls_by_time MODIFY COMMENT 'Calls ordered by call time (range reads by the grader). Key: called_at, author, token.';
ALTER TABLE calls_by_time
    COMMENT COLUMN called_at 'the call time: the author\'s first mention of the token, UTC',
    COMMENT COLUMN author 'social handle of the account that posted, lowercase without @',
    COMMENT COLUMN token 'token contract, 0x address, lowercase';

ALTER TABLE calls_noted MODIFY COMMENT 'Calls by arrival time (late calls are found here, kept a week). Key: noted_at, author, token.';
ALTER TABLE calls_noted
    COMMENT COLUMN noted_at 'when the row was noted, by the database clock (ms), UTC',
    COMMENT COLUMN author 'social handle of the account that posted, lowercase without @',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN called_at 'the call time: the author\'s first mention of the token, UTC';

ALTER TABLE chain_blocks MODIFY COMMENT 'Ingested blocks of each followed chain. Key: chain_id, number.';
ALTER TABLE chain_blocks
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN number 'block number',
    COMMENT COLUMN hash 'block hash, 0x hex',
    COMMENT COLUMN parent_hash 'parent block\'s hash, 0x hex',
    COMMENT COLUMN timestamp 'block timestamp, UTC',
    COMMENT COLUMN log_count 'logs in the block that the pipeline decoded',
    COMMENT COLUMN ingested_at 'when the block was stored, UTC';

ALTER TABLE chain_reorgs MODIFY COMMENT 'Detected chain reorganisations. Key: chain_id, detected_at.';
ALTER TABLE chain_reorgs
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN from_block 'first block that was replaced',
    COMMENT COLUMN old_hash 'hash of the replaced block',
    COMMENT COLUMN new_hash 'hash of the block that replaced it',
    COMMENT COLUMN detected_at 'when the reorg was detected, UTC';

ALTER TABLE chain_totals MODIFY COMMENT 'Running totals per chain kept by views (AggregatingMergeTree: sum/max on read). Key: chain_id.';
ALTER TABLE chain_totals
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN blocks 'blocks ingested',
    COMMENT COLUMN last_block_time 'time of the newest block, UTC',
    COMMENT COLUMN creations 'contracts created',
    COMMENT COLUMN pools 'pools created',
    COMMENT COLUMN transfers 'ERC-20 transfers',
    COMMENT COLUMN swaps 'swaps',
    COMMENT COLUMN weth_volume 'WETH traded, wei, exact (UInt256)',
    COMMENT COLUMN traders 'distinct traders',
    COMMENT COLUMN tokens_traded 'distinct tokens traded';

ALTER TABLE chain_traders MODIFY COMMENT 'Every trader a chain has seen (new traders of a batch are the ones not here). Key: chain_id, trader.';
ALTER TABLE chain_traders
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN trader 'wallet that traded, 0x address, lowercase';

ALTER TABLE contract_creations MODIFY COMMENT 'Contracts created on the chain, with the ERC-20 metadata read at creation. Key: chain_id, address.';
ALTER TABLE contract_creations
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN address 'created contract, 0x address, lowercase',
    COMMENT COLUMN deployer 'wallet that deployed the contract, 0x address, lowercase',
    COMMENT COLUMN block_number 'block number',
    COMMENT COLUMN tx_index 'index of the transaction within its block',
    COMMENT COLUMN tx_hash 'transaction hash, 0x hex',
    COMMENT COLUMN created_at 'block time of the creation, UTC',
    COMMENT COLUMN name 'token name as declared by the contract',
    COMMENT COLUMN symbol 'token symbol as declared by the contract',
    COMMENT COLUMN decimals 'token decimals as declared by the contract (NULL when not readable)';

ALTER TABLE deployer_state MODIFY COMMENT 'One row per deployer, newest version wins: launch record and score. Key: chain_id, deployer.';
ALTER TABLE deployer_state
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN deployer 'wallet that deployed the contract, 0x address, lowercase',
    COMMENT COLUMN launched 'tokens launched (first WETH pool)',
    COMMENT COLUMN real 'launched tokens that turned real',
    COMMENT COLUMN dead 'launched tokens idle 72 h',
    COMMENT COLUMN insider_prep_count 'launches with tokens distributed to wallets before launch',
    COMMENT COLUMN best_token 'the best token by WETH volume, 0x address, lowercase',
    COMMENT COLUMN best_symbol 'the best token\'s symbol',
    COMMENT COLUMN best_volume 'the best token\'s WETH volume, wei, exact (UInt256)',
    COMMENT COLUMN score 'deployer score 0..100',
    COMMENT COLUMN band 'score band (e.g. trusted, mixed, risky)',
    COMMENT COLUMN version 'row version: the highest wins on merge (ReplacingMergeTree)';

ALTER TABLE erc20_transfers MODIFY COMMENT 'ERC-20 Transfer logs of the chain. Key: chain_id, block_number, log_index.';
ALTER TABLE erc20_transfers
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN block_number 'block number',
    COMMENT COLUMN log_index 'index of the log within its block',
    COMMENT COLUMN tx_hash 'transaction hash, 0x hex',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN from_address 'sender, 0x address, lowercase',
    COMMENT COLUMN to_address 'recipient, 0x address, lowercase',
    COMMENT COLUMN value 'amount in token base units, exact (UInt256)',
    COMMENT COLUMN block_time 'timestamp of the block, UTC';

ALTER TABLE follow_events MODIFY COMMENT 'Follow and unfollow transitions of watched social accounts, by the poll that saw them. Key: observed_at, id.';
ALTER TABLE follow_events
    COMMENT COLUMN id 'event id (watcher, followed, poll)',
    COMMENT COLUMN watcher 'the account that follows or unfollows, lowercase',
    COMMENT COLUMN followed 'the followed account, lowercase',
    COMMENT COLUMN event '\'baseline\' (already following when tracking began), \'follow\' or \'unfollow\'',
    COMMENT COLUMN observed_at 'the poll that saw the change, UTC',
    COMMENT COLUMN previous_poll 'the poll before it, UTC (NULL: first poll)',
    COMMENT COLUMN watched '1: the watcher is a watched principal account';

ALTER TABLE follow_snapshots MODIFY COMMENT 'Polled follow lists of social accounts. Key: account, observed_at.';
ALTER TABLE follow_snapshots
    COMMENT COLUMN account 'polled account, lowercase',
    COMMENT COLUMN observed_at 'poll time, UTC',
    COMMENT COLUMN following 'accounts it followed at the poll, lowercase',
    COMMENT COLUMN watched '1: a watched principal account';

ALTER TABLE launch_feed MODIFY COMMENT 'Launches in the order they entered the feed (the /feed/new cursor). Key: chain_id, visible_at, token.';
ALTER TABLE launch_feed
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN visible_at 'when the launch entered the feed, UTC, microseconds: the cursor',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN block_number 'block number';

ALTER TABLE launches MODIFY COMMENT 'A token\'s launch: its first WETH pool. Key: chain_id, token.';
ALTER TABLE launches
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN pool 'the launch pool, 0x address, lowercase',
    COMMENT COLUMN protocol 'DEX protocol of the pool (e.g. uniswap_v2)',
    COMMENT COLUMN block_number 'block number',
    COMMENT COLUMN launched_at 'block time of the launch, UTC',
    COMMENT COLUMN visible_at 'when the launch entered the feed, UTC, microseconds';

ALTER TABLE liquidity_events MODIFY COMMENT 'Pool liquidity adds (mint) and removes (burn). Key: chain_id, block_number, log_index.';
ALTER TABLE liquidity_events
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN block_number 'block number',
    COMMENT COLUMN log_index 'index of the log within its block',
    COMMENT COLUMN tx_hash 'transaction hash, 0x hex',
    COMMENT COLUMN pool 'pair (pool) contract, 0x address, lowercase',
    COMMENT COLUMN kind '\'mint\' (liquidity added) or \'burn\' (removed)',
    COMMENT COLUMN provider 'the liquidity provider, 0x address, lowercase',
    COMMENT COLUMN amount0 'token0 amount, base units, exact',
    COMMENT COLUMN amount1 'token1 amount, base units, exact',
    COMMENT COLUMN block_time 'timestamp of the block, UTC',
    COMMENT COLUMN liquidity 'LP tokens minted or burned, exact';

ALTER TABLE mcp_clients MODIFY COMMENT 'MCP connector clients registered by RFC 7591 (public clients, no secret). Key: client_id.';
ALTER TABLE mcp_clients
    COMMENT COLUMN client_id 'the client id (mcpc_...)',
    COMMENT COLUMN client_name 'name the client registered',
    COMMENT COLUMN redirect_uris 'redirect URIs the client registered',
    COMMENT COLUMN created_at 'when the row was created, UTC';

ALTER TABLE mcp_connections MODIFY COMMENT 'MCP connection tokens, hashed (secret: not readable through ad-hoc SQL). Key: token_hash.';
ALTER TABLE mcp_connections
    COMMENT COLUMN token_hash 'SHA-256 hex of the connection token',
    COMMENT COLUMN key_hash 'SHA-256 hex of the subscription key (the key itself is never stored)',
    COMMENT COLUMN client_id 'the client it was issued to',
    COMMENT COLUMN created_at 'when the row was created, UTC',
    COMMENT COLUMN expires_at 'when the token expires, UTC';

ALTER TABLE mention_hourly MODIFY COMMENT 'Mentions of a token per hour (AggregatingMergeTree). Key: token, hour.';
ALTER TABLE mention_hourly
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN hour 'the hour, UTC',
    COMMENT COLUMN posts 'uniqExact state of the posts',
    COMMENT COLUMN authors 'groupUniqArray state of the authors';

ALTER TABLE mentions MODIFY COMMENT 'Social posts mentioning a token (by address or cashtag), one row per post, token and symbol. Key: token, symbol, post_id.';
ALTER TABLE mentions
    COMMENT COLUMN post_id 'id of the social post',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN symbol 'token symbol as declared by the contract',
    COMMENT COLUMN via 'how the token was named: \'address\' or \'cashtag\'',
    COMMENT COLUMN ambiguous '1: the cashtag matched more than one token',
    COMMENT COLUMN author 'social handle of the account that posted, lowercase without @',
    COMMENT COLUMN posted_at 'when the post was published, UTC',
    COMMENT COLUMN captured_at 'when the mention was captured by the service, UTC';

ALTER TABLE mentions_by_capture MODIFY COMMENT 'Mentions ordered by capture time (range reads). Key: captured_at, author, token.';
ALTER TABLE mentions_by_capture
    COMMENT COLUMN captured_at 'when the mention was captured by the service, UTC',
    COMMENT COLUMN author 'social handle of the account that posted, lowercase without @',
    COMMENT COLUMN token 'token contract, 0x address, lowercase';

ALTER TABLE pipeline_batches MODIFY COMMENT 'The batch journal: a batch is recorded before it is inserted so a retry re-forms it exactly (the newest per consumer matters). Key: consumer.';
ALTER TABLE pipeline_batches
    COMMENT COLUMN consumer 'the pipeline consumer',
    COMMENT COLUMN first_block 'first block of the batch',
    COMMENT COLUMN last_block 'last block of the batch',
    COMMENT COLUMN token 'the batch\'s insert deduplication token',
    COMMENT COLUMN planned_at 'when the batch was recorded, UTC';

ALTER TABLE pool_liquidity MODIFY COMMENT 'Liquidity added and removed per pool (SummingMergeTree). Key: chain_id, pool.';
ALTER TABLE pool_liquidity
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN pool 'pair (pool) contract, 0x address, lowercase',
    COMMENT COLUMN added 'LP tokens minted, exact',
    COMMENT COLUMN removed 'LP tokens burned, exact';

ALTER TABLE pool_providers MODIFY COMMENT 'Liquidity added and removed per pool and provider (SummingMergeTree). Key: chain_id, pool, provider.';
ALTER TABLE pool_providers
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN pool 'pair (pool) contract, 0x address, lowercase',
    COMMENT COLUMN provider 'the liquidity provider, 0x address, lowercase',
    COMMENT COLUMN added 'LP tokens minted, exact',
    COMMENT COLUMN removed 'LP tokens burned, exact';

ALTER TABLE pool_reserves MODIFY COMMENT 'Pool reserves after each Sync log. Key: chain_id, block_number, log_index.';
ALTER TABLE pool_reserves
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN block_number 'block number',
    COMMENT COLUMN log_index 'index of the log within its block',
    COMMENT COLUMN pool 'pair (pool) contract, 0x address, lowercase',
    COMMENT COLUMN reserve0 'token0 reserve, base units, exact',
    COMMENT COLUMN reserve1 'token1 reserve, base units, exact',
    COMMENT COLUMN block_time 'timestamp of the block, UTC';

ALTER TABLE pools MODIFY COMMENT 'Pools (pairs) created on the chain. Key: chain_id, pool.';
ALTER TABLE pools
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN pool 'pair (pool) contract, 0x address, lowercase',
    COMMENT COLUMN protocol 'DEX protocol of the pool (e.g. uniswap_v2)',
    COMMENT COLUMN factory 'the factory that created it, 0x address, lowercase',
    COMMENT COLUMN token0 'token0, 0x address, lowercase',
    COMMENT COLUMN token1 'token1, 0x address, lowercase',
    COMMENT COLUMN block_number 'block number',
    COMMENT COLUMN log_index 'index of the log within its block',
    COMMENT COLUMN created_at 'block time of the creation, UTC';

ALTER TABLE price_candles MODIFY COMMENT 'Minute candles of reference prices (e.g. ETH/USD). Key: pair, minute.';
ALTER TABLE price_candles
    COMMENT COLUMN pair 'the pair (e.g. \'ETH/USD\')',
    COMMENT COLUMN minute 'the minute, UTC',
    COMMENT COLUMN open 'first price of the minute',
    COMMENT COLUMN high 'highest price',
    COMMENT COLUMN low 'lowest price',
    COMMENT COLUMN close 'last price';

ALTER TABLE schema_migrations MODIFY COMMENT 'Applied migrations. Key: version.';
ALTER TABLE schema_migrations
    COMMENT COLUMN version 'migration number',
    COMMENT COLUMN name 'migration file name',
    COMMENT COLUMN checksum 'the file\'s checksum when applied',
    COMMENT COLUMN applied_at 'when it was applied, UTC';

ALTER TABLE serving_changes MODIFY COMMENT 'What each serving refresh changed, in seq order: API processes drop exactly these keys from their caches.';
ALTER TABLE serving_changes
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN seq 'change sequence, microseconds, always increasing',
    COMMENT COLUMN kind 'what changed: \'token\', \'deployer\', ... or \'batch\' (a refreshed batch)',
    COMMENT COLUMN key 'the changed token or deployer',
    COMMENT COLUMN watermark 'a batch row\'s last block',
    COMMENT COLUMN chain_time 'a batch row\'s chain time (unix seconds)',
    COMMENT COLUMN at 'when the change was written, UTC';

ALTER TABLE serving_identity MODIFY COMMENT 'This database\'s identity: caches in a shared Redis are shared only by processes of the same database.';
ALTER TABLE serving_identity
    COMMENT COLUMN id 'random id of the database';

ALTER TABLE swaps MODIFY COMMENT 'Swaps against WETH pools. Key: chain_id, block_number, log_index.';
ALTER TABLE swaps
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN block_number 'block number',
    COMMENT COLUMN log_index 'index of the log within its block',
    COMMENT COLUMN tx_hash 'transaction hash, 0x hex',
    COMMENT COLUMN pool 'pair (pool) contract, 0x address, lowercase',
    COMMENT COLUMN protocol 'DEX protocol of the pool (e.g. uniswap_v2)',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN trader 'wallet that traded, 0x address, lowercase',
    COMMENT COLUMN token_in 'tokens sold into the pool, base units, exact',
    COMMENT COLUMN token_out 'tokens bought from the pool, base units, exact',
    COMMENT COLUMN weth_in 'WETH paid in, wei, exact (UInt256)',
    COMMENT COLUMN weth_out 'WETH received, wei, exact (UInt256)',
    COMMENT COLUMN block_time 'timestamp of the block, UTC';

ALTER TABLE swaps_by_token MODIFY COMMENT 'Swaps ordered by token (reads per token). Key: chain_id, token, block_number, log_index.';
ALTER TABLE swaps_by_token
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN block_number 'block number',
    COMMENT COLUMN log_index 'index of the log within its block',
    COMMENT COLUMN block_time 'timestamp of the block, UTC',
    COMMENT COLUMN tx_hash 'transaction hash, 0x hex',
    COMMENT COLUMN pool 'pair (pool) contract, 0x address, lowercase',
    COMMENT COLUMN protocol 'DEX protocol of the pool (e.g. uniswap_v2)',
    COMMENT COLUMN trader 'wallet that traded, 0x address, lowercase',
    COMMENT COLUMN token_in 'tokens sold into the pool, base units, exact',
    COMMENT COLUMN token_out 'tokens bought from the pool, base units, exact',
    COMMENT COLUMN weth_in 'WETH paid in, wei, exact (UInt256)',
    COMMENT COLUMN weth_out 'WETH received, wei, exact (UInt256)';

ALTER TABLE tg_sightings MODIFY COMMENT 'Tokens seen in messaging-platform rooms. Key: token, room, message_id.';
ALTER TABLE tg_sightings
    COMMENT COLUMN room 'the room',
    COMMENT COLUMN message_id 'the message',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN seen_at 'when the message was posted, UTC';

ALTER TABLE tg_token_stats MODIFY COMMENT 'Messaging-platform sightings per token (AggregatingMergeTree). Key: token.';
ALTER TABLE tg_token_stats
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN rooms 'uniqExact state of the rooms',
    COMMENT COLUMN messages 'uniqExact state of the messages',
    COMMENT COLUMN first_at 'min: first sighting, UTC';

ALTER TABLE token_activity MODIFY COMMENT 'Per-token trading activity kept by a view over swaps (AggregatingMergeTree). Key: chain_id, token.';
ALTER TABLE token_activity
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN swaps 'number of swaps',
    COMMENT COLUMN weth_volume 'WETH traded, wei, exact (UInt256)',
    COMMENT COLUMN traders 'uniqExact state of the traders',
    COMMENT COLUMN first_swap_block 'min: first swap block',
    COMMENT COLUMN last_swap_block 'max: last swap block',
    COMMENT COLUMN last_swap_time 'max: last swap time, UTC';

ALTER TABLE token_block_activity MODIFY COMMENT 'Swaps and WETH volume per token and block (SummingMergeTree). Key: chain_id, token, block_number.';
ALTER TABLE token_block_activity
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN block_number 'block number',
    COMMENT COLUMN swaps 'number of swaps',
    COMMENT COLUMN weth_volume 'WETH traded, wei, exact (UInt256)';

ALTER TABLE token_last_swap MODIFY COMMENT 'Each token\'s latest swap, for its quote (AggregatingMergeTree). Key: chain_id, token.';
ALTER TABLE token_last_swap
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN last_key 'max: (block_number, log_index) of the latest swap',
    COMMENT COLUMN quote 'argMax state: (weth, tokens, pool, time, block) of the latest swap';

ALTER TABLE token_real MODIFY COMMENT 'The block in which a token first met the "real" thresholds. Key: chain_id, token.';
ALTER TABLE token_real
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN real_block 'block in which the token first met the "real" thresholds',
    COMMENT COLUMN real_at 'time of real_block, UTC';

ALTER TABLE token_real_noted MODIFY COMMENT 'Tokens by the time they were noted real (read by the grader, kept a week). Key: chain_id, noted_at, token.';
ALTER TABLE token_real_noted
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN noted_at 'when the row was noted, by the database clock (ms), UTC',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN real_block 'block in which the token first met the "real" thresholds';

ALTER TABLE token_state MODIFY COMMENT 'One row per token, newest version wins: launch facts, activity, real, quote, supply, liquidity. Key: chain_id, token.';
ALTER TABLE token_state
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN present '0: a reorg removed the token',
    COMMENT COLUMN deployer 'wallet that deployed the contract, 0x address, lowercase',
    COMMENT COLUMN name 'token name as declared by the contract',
    COMMENT COLUMN symbol 'token symbol as declared by the contract',
    COMMENT COLUMN symbol_lower 'symbol, lowercase (search)',
    COMMENT COLUMN name_lower 'name, lowercase (search)',
    COMMENT COLUMN decimals 'token decimals as declared by the contract (NULL when not readable)',
    COMMENT COLUMN created '1: the creation is known',
    COMMENT COLUMN created_block 'creation block',
    COMMENT COLUMN created_at 'creation time, UTC',
    COMMENT COLUMN launched '1: launched (has a WETH pool)',
    COMMENT COLUMN launch_pool 'the launch pool, 0x address, lowercase',
    COMMENT COLUMN launch_protocol 'the launch pool\'s protocol',
    COMMENT COLUMN launch_block 'launch block',
    COMMENT COLUMN launched_at 'launch time, UTC',
    COMMENT COLUMN visible_us 'when the launch entered the feed, unix microseconds',
    COMMENT COLUMN swaps 'number of swaps',
    COMMENT COLUMN weth_volume 'WETH traded, wei, exact (UInt256)',
    COMMENT COLUMN traders 'number of distinct traders',
    COMMENT COLUMN first_swap_block 'first swap block',
    COMMENT COLUMN last_swap_block 'last swap block',
    COMMENT COLUMN last_swap_time 'last swap time, UTC',
    COMMENT COLUMN is_real '1: met the real thresholds',
    COMMENT COLUMN real_block 'block in which the token first met the "real" thresholds',
    COMMENT COLUMN real_at 'time of real_block, UTC',
    COMMENT COLUMN quoted '1: has a quote (a swap)',
    COMMENT COLUMN quote 'latest swap: (weth, tokens, pool, time, block)',
    COMMENT COLUMN price_weth 'latest price, WETH per token',
    COMMENT COLUMN eth_usd 'ETH/USD at the latest price (decimal string, NULL: unknown)',
    COMMENT COLUMN minted 'tokens minted (transfers from the zero address), in token base units, exact',
    COMMENT COLUMN burned 'tokens burned (transfers to the zero address), in token base units, exact',
    COMMENT COLUMN liquidity_added 'LP tokens minted into the launch pool, exact',
    COMMENT COLUMN liquidity_removed 'LP tokens burned from the launch pool, exact',
    COMMENT COLUMN prelaunch_recipients 'wallets that received the token before launch',
    COMMENT COLUMN last_activity 'last swap or transfer, unix seconds (dead after 72 h idle)',
    COMMENT COLUMN version 'row version: the highest wins on merge (ReplacingMergeTree)';

ALTER TABLE token_supply MODIFY COMMENT 'Minted and burned supply per token (SummingMergeTree). Key: chain_id, token.';
ALTER TABLE token_supply
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN minted 'tokens minted (transfers from the zero address), in token base units, exact',
    COMMENT COLUMN burned 'tokens burned (transfers to the zero address), in token base units, exact';

ALTER TABLE token_trader_first MODIFY COMMENT 'Each trader\'s first block per token (AggregatingMergeTree). Key: chain_id, token, trader.';
ALTER TABLE token_trader_first
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN trader 'wallet that traded, 0x address, lowercase',
    COMMENT COLUMN first_block 'min: first block the trader swapped the token';

ALTER TABLE transfers_by_token MODIFY COMMENT 'ERC-20 transfers ordered by token (reads per token). Key: chain_id, token, block_number, log_index.';
ALTER TABLE transfers_by_token
    COMMENT COLUMN chain_id 'EVM chain id (4663: the followed chain)',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN block_number 'block number',
    COMMENT COLUMN log_index 'index of the log within its block',
    COMMENT COLUMN tx_hash 'transaction hash, 0x hex',
    COMMENT COLUMN from_address 'sender, 0x address, lowercase',
    COMMENT COLUMN to_address 'recipient, 0x address, lowercase',
    COMMENT COLUMN value 'amount in token base units, exact (UInt256)',
    COMMENT COLUMN block_time 'timestamp of the block, UTC';

ALTER TABLE watchlists MODIFY COMMENT 'Each key\'s watched tokens (customer data: not readable through ad-hoc SQL). Key: key_hash, token.';
ALTER TABLE watchlists
    COMMENT COLUMN key_hash 'SHA-256 hex of the subscription key (the key itself is never stored)',
    COMMENT COLUMN token 'token contract, 0x address, lowercase',
    COMMENT COLUMN watched '1: watched, 0: removed',
    COMMENT COLUMN updated_at 'when it was added or removed, UTC',
    COMMENT COLUMN version 'row version: the highest wins on merge (ReplacingMergeTree)';

ALTER TABLE webhook_deliveries MODIFY COMMENT 'Alert webhook deliveries and their attempts (customer data: not readable through ad-hoc SQL). Key: key_hash, delivery_id.';
ALTER TABLE webhook_deliveries
    COMMENT COLUMN key_hash 'SHA-256 hex of the subscription key (the key itself is never stored)',
    COMMENT COLUMN delivery_id 'the delivery',
    COMMENT COLUMN event_id 'the alert event delivered',
    COMMENT COLUMN kind 'kind of alert',
    COMMENT COLUMN url 'the webhook URL',
    COMMENT COLUMN status '\'pending\', \'retrying\', \'delivered\' or \'failed\'',
    COMMENT COLUMN attempts 'attempts made',
    COMMENT COLUMN last_code 'HTTP status of the last attempt (NULL: none)',
    COMMENT COLUMN last_error 'the last attempt\'s error (\'\' when none)',
    COMMENT COLUMN created_at 'when the row was created, UTC',
    COMMENT COLUMN updated_at 'when the row was last changed, UTC',
    COMMENT COLUMN version 'row version: the highest wins on merge (ReplacingMergeTree)',
    COMMENT COLUMN body 'the JSON body delivered';

ALTER TABLE webhooks MODIFY COMMENT 'Each key\'s alert webhook and its signing secret (secret: not readable through ad-hoc SQL). Key: key_hash.';
ALTER TABLE webhooks
    COMMENT COLUMN key_hash 'SHA-256 hex of the subscription key (the key itself is never stored)',
    COMMENT COLUMN url 'the https webhook URL',
    COMMENT COLUMN secret 'the signing secret (whsec_...)',
    COMMENT COLUMN created_at 'when the row was created, UTC',
    COMMENT COLUMN deleted '1: removed',
    COMMENT COLUMN version 'row version: the highest wins on merge (ReplacingMergeTree)';
