-- Scan jobs and what they leave behind (issue 11): the jobs of POST /structure/{token},
-- POST /forensics/{token} and the daily scan of watched tokens (states: core/domain/scan-job.ts),
-- the cached forensics results, and the holder-snapshot archive each structure scan writes
-- (feeding /structure/{token}/history and /entity/{address}). Customer-facing and durable: kept
-- here, not in the store.

CREATE TABLE IF NOT EXISTS scan_jobs
(
    chain_id               UInt32 COMMENT 'chain of the scanned token',
    kind                   LowCardinality(String) COMMENT 'structure or forensics',
    token                  String COMMENT 'scanned token address, lowercase 0x hex',
    job_id                 String COMMENT 'the job id answered to the caller (UUID)',
    trigger                LowCardinality(String) COMMENT 'request (a POST) or daily (a watched token)',
    state                  LowCardinality(String) COMMENT 'queued, running, done or failed',
    reason                 String COMMENT 'why the scan failed; empty unless failed',
    requested_at           DateTime64(3, 'UTC') COMMENT 'when the job was queued (wall clock)',
    updated_at             DateTime64(3, 'UTC') COMMENT 'when it entered this state (wall clock)',
    measured_through_block UInt64 COMMENT 'block the stored result is measured through (done); 0 otherwise',
    version                UInt64 COMMENT 'microseconds of the transition; the row with the highest version is the job state'
)
ENGINE = MergeTree
ORDER BY (chain_id, kind, token, job_id, version)
SETTINGS index_granularity = 256
COMMENT 'One row per scan-job transition, kept (the log of each job); a job is (kind, token, job_id) and its newest version is its state. Read by (chain, kind, token).';

CREATE TABLE IF NOT EXISTS forensics_results
(
    chain_id               UInt32 COMMENT 'chain of the token',
    token                  String COMMENT 'token address, lowercase 0x hex',
    measured_through_block UInt64 COMMENT 'the chain block the result is measured through',
    job_id                 String COMMENT 'the scan job that computed it',
    computed_at            DateTime64(3, 'UTC') COMMENT 'when it was computed (wall clock)',
    result                 String COMMENT 'the forensics answer as JSON (wei amounts as decimal strings), as GET /forensics/{token} serves it'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, token, measured_through_block)
SETTINGS index_granularity = 256
COMMENT 'Forensics results by token and the block they are measured through; GET /forensics/{token} serves the newest. A reorg deletes results measured through orphaned blocks.';

CREATE TABLE IF NOT EXISTS structure_snapshots
(
    chain_id     UInt32 COMMENT 'chain of the token',
    token        String COMMENT 'token address, lowercase 0x hex',
    to_block     UInt64 COMMENT 'the block the snapshot is measured through (end of its 24 h window)',
    to_time      DateTime('UTC') COMMENT 'timestamp of to_block (chain clock)',
    from_block   UInt64 COMMENT 'baseline block of the 24 h diff window',
    from_time    DateTime('UTC') COMMENT 'timestamp of from_block (chain clock)',
    trigger      LowCardinality(String) COMMENT 'daily (watched token) or request (POST /structure)',
    job_id       String COMMENT 'the scan job that took it',
    taken_at     DateTime64(3, 'UTC') COMMENT 'when it was taken (wall clock)',
    holder_count UInt64 COMMENT 'wallets with a non-zero balance at to_block (pools and the zero address excluded)',
    top_holders  Array(Tuple(address String, balance UInt256, share String, labels String)) COMMENT 'the largest holders at to_block: address, balance in token wei, share of supply (decimal fraction, 9 digits), labels (JSON array of label objects as /structure/{token} shows them)',
    frozen       UInt64 COMMENT 'diff summary: wallets unchanged over the window',
    added        UInt64 COMMENT 'diff summary: wallets whose balance grew',
    trimmed      UInt64 COMMENT 'diff summary: wallets whose balance shrank, still above 0',
    exited       UInt64 COMMENT 'diff summary: wallets now at 0',
    verdict      LowCardinality(String) COMMENT 'structure verdict: rotation, distribution, accumulation or insufficient_data'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, token, to_block)
SETTINGS index_granularity = 256
COMMENT 'The holder-snapshot archive: one row per structure scan of a token, by token and block. Feeds GET /structure/{token}/history and structure_flip alerts.';

CREATE TABLE IF NOT EXISTS snapshot_holdings
(
    chain_id UInt32 COMMENT 'chain of the token',
    wallet   String COMMENT 'wallet address, lowercase 0x hex',
    token    String COMMENT 'token address, lowercase 0x hex',
    to_block UInt64 COMMENT 'the snapshot (structure_snapshots.to_block) this appearance belongs to',
    balance  UInt256 COMMENT 'the wallet balance at to_block, token wei',
    labels   String COMMENT 'the wallet labels in that snapshot: JSON array of label objects (deployer, insider, entity, round_allocation, identity, smart) as /structure/{token} shows them'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, wallet, token, to_block)
SETTINGS index_granularity = 256
COMMENT 'Every wallet a structure snapshot names (its top holders and the wallets of its diff), by wallet: the appearances of GET /entity/{address} are one keyed read per wallet.';

-- Transfers by wallet, both sides (one row per side of each transfer): a wallet's receipts and
-- sends, per token, are one keyed read (the deployer's funders, a wallet's off-market supply and
-- counterparties). erc20_transfers is ordered by block, transfers_by_token by token.
CREATE TABLE IF NOT EXISTS transfers_by_wallet
(
    chain_id     UInt32 COMMENT 'chain id',
    wallet       String COMMENT 'one side of the transfer, lowercase 0x hex (the zero address is never a wallet here)',
    token        String COMMENT 'ERC20 token contract, lowercase 0x hex',
    block_number UInt64 COMMENT 'block of the transfer',
    log_index    UInt32 COMMENT 'log index of the Transfer in its block',
    direction    Enum8('in' = 1, 'out' = 2) COMMENT 'in: wallet received; out: wallet sent',
    counterparty String COMMENT 'the other side (the zero address for a mint or burn)',
    value        UInt256 COMMENT 'amount in the token''s smallest unit (wei-exact)',
    tx_hash      String COMMENT 'transaction hash'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, wallet, token, block_number, log_index, direction)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 10000
COMMENT 'ERC20 transfers by wallet and token (each transfer under both sides, the zero address left out), kept by a view over erc20_transfers; deleted at or above a reorg''s fork block';

CREATE MATERIALIZED VIEW IF NOT EXISTS transfers_by_wallet_mv TO transfers_by_wallet AS
SELECT chain_id, side.1 AS wallet, token, block_number, log_index, side.2 AS direction, side.3 AS counterparty, value, tx_hash
FROM erc20_transfers
ARRAY JOIN [(to_address, 'in', from_address), (from_address, 'out', to_address)] AS side
WHERE side.1 != '0x0000000000000000000000000000000000000000';

INSERT INTO transfers_by_wallet
SELECT chain_id, side.1 AS wallet, token, block_number, log_index, side.2 AS direction, side.3 AS counterparty, value, tx_hash
FROM (SELECT * FROM erc20_transfers FINAL)
ARRAY JOIN [(to_address, 'in', from_address), (from_address, 'out', to_address)] AS side
WHERE side.1 != '0x0000000000000000000000000000000000000000' AND (SELECT count() FROM transfers_by_wallet) = 0;
