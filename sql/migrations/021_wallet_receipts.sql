-- Wallet receipts (issue 12): FIFO-matched realized PnL per wallet and token, kept by ClickHouse as
-- swaps arrive (DESIGN §4, §7). Swaps become legs in wallet order (a view); after each batch the
-- chain processor folds each touched wallet-token's new legs onto its stored FIFO state
-- (core/domain/fifo-sql.ts, pipelines/process/fifo-refresh.ts), so the work is the batch's legs,
-- never a wallet's history. A receipt reads the wallet's states, its sells and its claims by key.

-- Legs: one row per swap event, attributed to the transaction's sender (`trader`), in wallet order.
-- A buy takes the token out of the pool for WETH; a sell puts it in for WETH. A routed trade
-- (A -> WETH -> B in one transaction) is two events, hence a sell of A and a buy of B, each at the
-- hop's WETH; the router's WETH in between is no flow of the wallet.
CREATE TABLE IF NOT EXISTS wallet_legs
(
    chain_id     UInt32 COMMENT 'chain of the swap',
    wallet       String COMMENT 'the transaction sender (lowercase 0x address): whose leg it is',
    token        String COMMENT 'the non-WETH token of the pool (lowercase 0x address)',
    block_number UInt64 COMMENT 'block of the swap event',
    log_index    UInt32 COMMENT 'log index of the swap event in its block',
    block_time   DateTime('UTC') COMMENT 'block timestamp',
    tx_hash      String COMMENT 'transaction hash',
    side         Int8 COMMENT '1 = buy (token out of the pool, WETH in), -1 = sell (token in, WETH out)',
    qty          Int256 COMMENT 'token quantity bought or sold, in the token''s smallest unit',
    cost         Int256 COMMENT 'WETH in wei: paid for a buy, received for a sell'
)
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, wallet, token, block_number, log_index)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'FIFO legs: one row per swap event, by wallet and token in chain order (view of swaps)';

CREATE MATERIALIZED VIEW IF NOT EXISTS wallet_legs_mv TO wallet_legs AS
SELECT chain_id, trader AS wallet, token, block_number, log_index, block_time, tx_hash,
       toInt8(if(token_out > token_in, 1, -1)) AS side,
       if(token_out > token_in, toInt256(token_out) - toInt256(token_in), toInt256(token_in) - toInt256(token_out)) AS qty,
       if(token_out > token_in, toInt256(weth_in) - toInt256(weth_out), toInt256(weth_out) - toInt256(weth_in)) AS cost
FROM swaps
WHERE token_out != token_in;

INSERT INTO wallet_legs
SELECT chain_id, trader AS wallet, token, block_number, log_index, block_time, tx_hash,
       toInt8(if(token_out > token_in, 1, -1)) AS side,
       if(token_out > token_in, toInt256(token_out) - toInt256(token_in), toInt256(token_in) - toInt256(token_out)) AS qty,
       if(token_out > token_in, toInt256(weth_in) - toInt256(weth_out), toInt256(weth_out) - toInt256(weth_in)) AS cost
FROM swaps
WHERE token_out != token_in AND (SELECT count() FROM wallet_legs) = 0;

-- The FIFO state of each wallet-token (newest version wins): open lots and sums after the legs
-- folded so far, through a leg position. Each fold inserts one row per wallet-token it advanced,
-- with the sells it matched in `sells_added` (exploded into fifo_sells by the view below).
CREATE TABLE IF NOT EXISTS fifo_state
(
    chain_id    UInt32 COMMENT 'chain',
    wallet      String COMMENT 'trader (lowercase 0x address)',
    token       String COMMENT 'token (lowercase 0x address)',
    through_pos UInt64 COMMENT 'position of the last folded leg: block_number * 2^24 + log_index + 1 (0: none)',
    legs        UInt64 COMMENT 'legs folded so far',
    state       Tuple(lots Array(Tuple(qty Int256, cost Int256, opened_at UInt32)), realized Int256, sells UInt64, winning_sells UInt64, unmatched_qty Int256, matched_cost Int256, spent Int256, received Int256)
                COMMENT 'FIFO state (core/domain/fifo-sql.ts): open lots oldest first (token qty, WETH wei cost, opened unix s); realized, unmatched, matched cost, spent and received in wei / token units; sell counts',
    sells_added Array(Tuple(block_number UInt64, log_index UInt32, block_time DateTime('UTC'), qty Int256, proceeds Int256, matched_cost Int256, unmatched_qty Int256, realized Int256, closed_holds Array(UInt32)))
                COMMENT 'the sells this fold matched (WETH wei; holds in seconds of the lots each sell closed)',
    version     UInt64 COMMENT 'fold version (microseconds, increasing)'
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (chain_id, wallet, token)
SETTINGS index_granularity = 256
COMMENT 'FIFO state per wallet and token, advanced by each batch that traded it';

-- One row per matched sell leg: a wallet's 30-day realized result and its closed lots' holds are
-- range reads on (wallet, time). `version` is the fold that wrote it (rows of a rolled-back fold
-- are deleted with their state; readers take the newest per key).
CREATE TABLE IF NOT EXISTS fifo_sells
(
    chain_id      UInt32 COMMENT 'chain',
    wallet        String COMMENT 'trader (lowercase 0x address)',
    block_time    DateTime('UTC') COMMENT 'time of the sell',
    block_number  UInt64 COMMENT 'block of the sell',
    log_index     UInt32 COMMENT 'log index of the sell',
    token         String COMMENT 'token sold',
    qty           Int256 COMMENT 'token quantity sold (smallest unit)',
    proceeds      Int256 COMMENT 'WETH received, wei',
    matched_cost  Int256 COMMENT 'FIFO cost of the matched quantity, wei',
    unmatched_qty Int256 COMMENT 'quantity sold without an open lot (zero cost)',
    realized      Int256 COMMENT 'proceeds - matched_cost, wei',
    closed_holds  Array(UInt32) COMMENT 'hold in seconds of each lot this sell closed',
    version       UInt64 COMMENT 'fold version that matched it'
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (chain_id, wallet, block_time, block_number, log_index, token)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Matched FIFO sells by wallet and time';

CREATE MATERIALIZED VIEW IF NOT EXISTS fifo_sells_mv TO fifo_sells AS
SELECT chain_id, wallet, s.block_time AS block_time, s.block_number AS block_number, s.log_index AS log_index, token,
       s.qty AS qty, s.proceeds AS proceeds, s.matched_cost AS matched_cost, s.unmatched_qty AS unmatched_qty,
       s.realized AS realized, s.closed_holds AS closed_holds, version
FROM fifo_state ARRAY JOIN sells_added AS s;

-- Third-party leaderboard claims (topic leaderboard.claims). A leaderboard is the claims sharing
-- (source, claimed_at); the tracked roster is the latest one (greatest claimed_at), at most 100
-- wallets. Replaces on its key, so a redelivered claim is one row.
CREATE TABLE IF NOT EXISTS leaderboard_claims
(
    claimed_at          DateTime('UTC') COMMENT 'when the leaderboard was published (end of its 30-day window)',
    source              String COMMENT 'who published it',
    wallet              String COMMENT 'ranked wallet (lowercase 0x address)',
    rank                UInt16 COMMENT 'rank on the leaderboard, 1 = top',
    claimed_pnl_usd_30d Float64 COMMENT 'PnL the source claims for the wallet over the 30 days to claimed_at, USD'
)
ENGINE = ReplacingMergeTree
ORDER BY (claimed_at, source, wallet)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Leaderboard claims; the latest leaderboard is the tracked roster';
