-- The Solana venue (issue 12 item 4): its universe of wallets, its 5-minute SOL/USD candles, its
-- trades with each quote leg valued in micro-USD once at ingest (a fact that freezes), and what
-- the receipts read by wallet. Every table keeps a deduplication window, so a batch retried with
-- its insert_deduplication_token lands once in the raw tables and in every view target.

CREATE TABLE IF NOT EXISTS solana_universe
(
    wallet    String COMMENT 'base58 address of a wallet of the venue universe',
    venue     LowCardinality(String) COMMENT 'the trading venue whose universe lists the wallet',
    listed_at DateTime('UTC') COMMENT 'when the wallet was listed in the universe (unix seconds, UTC)'
)
ENGINE = ReplacingMergeTree
ORDER BY wallet
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'Solana venue universe membership (solana.universe): one row per wallet; the receipt answers found:false for a wallet not here. Key: wallet';

CREATE TABLE IF NOT EXISTS sol_usd_candles
(
    start DateTime('UTC') COMMENT 'unix second the 5-minute window starts at (a multiple of 300)',
    open  Decimal(38, 8) COMMENT 'USD per SOL at the window open',
    high  Decimal(38, 8) COMMENT 'highest USD per SOL in the window',
    low   Decimal(38, 8) COMMENT 'lowest USD per SOL in the window',
    close Decimal(38, 8) COMMENT 'USD per SOL at the window close: the price SOL legs of trades in the window are valued at'
)
ENGINE = ReplacingMergeTree
ORDER BY start
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'SOL/USD 5-minute candles (prices.sol_usd). Key: start';

CREATE TABLE IF NOT EXISTS solana_trades
(
    wallet        String COMMENT 'base58 address of the trading wallet',
    mint          String COMMENT 'base58 address of the token mint traded',
    block_time    DateTime('UTC') COMMENT 'block time of the transaction (unix seconds, UTC)',
    signature     String COMMENT 'base58 transaction signature',
    side          Enum8('buy' = 1, 'sell' = 2) COMMENT 'buy: token in, quote out of the wallet; sell: token out, quote in',
    slot          UInt64 COMMENT 'Solana slot of the transaction',
    token_qty     UInt256 COMMENT 'token quantity in the mint''s raw units',
    quote         Enum8('SOL' = 1, 'USD' = 2) COMMENT 'currency of the quote leg',
    quote_amount  UInt256 COMMENT 'quote leg in its smallest unit: lamports (1e-9 SOL) for SOL, micro-USD (1e-6 USD) for USD',
    usd_micro     UInt256 COMMENT 'quote leg in micro-USD: USD legs as is, SOL legs floor(lamports x close_e8 / 1e11) at the close of the trade''s 5-minute candle',
    sol_usd_close Decimal(38, 8) COMMENT 'SOL/USD close of the trade''s 5-minute candle used for usd_micro (0 for USD legs)'
)
ENGINE = ReplacingMergeTree
ORDER BY (wallet, mint, block_time, signature, side)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'Trades of the Solana venue (solana.trades), valued in micro-USD at ingest. Natural key (signature, mint, side); ordered by wallet for the receipt read';

-- When each wallet traded first and last: where a restarted simulator resumes each wallet, and
-- the receipt's activity window. min/max are idempotent, so a redelivered trade changes nothing.
CREATE TABLE IF NOT EXISTS solana_wallet_activity
(
    wallet   String COMMENT 'base58 address of the trading wallet',
    first_at SimpleAggregateFunction(min, DateTime('UTC')) COMMENT 'block time of the wallet''s first ingested trade',
    last_at  SimpleAggregateFunction(max, DateTime('UTC')) COMMENT 'block time of the wallet''s last ingested trade'
)
ENGINE = AggregatingMergeTree
ORDER BY wallet
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'First and last ingested trade per Solana venue wallet. Key: wallet';

CREATE MATERIALIZED VIEW IF NOT EXISTS solana_wallet_activity_mv TO solana_wallet_activity AS
SELECT wallet, min(block_time) AS first_at, max(block_time) AS last_at
FROM solana_trades
GROUP BY wallet;

-- What the venue data is complete through: trades are ingested in block-time order, each only
-- once its 5-minute candle is in, so the newest ingested block time bounds what is complete.
CREATE TABLE IF NOT EXISTS solana_progress
(
    venue   LowCardinality(String) COMMENT 'always solana: one row per venue feed',
    through SimpleAggregateFunction(max, DateTime('UTC')) COMMENT 'block time of the newest ingested trade',
    slot    SimpleAggregateFunction(max, UInt64) COMMENT 'highest slot ingested'
)
ENGINE = AggregatingMergeTree
ORDER BY venue
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'How far the Solana venue trades are ingested (measured_through of the Solana receipt). Key: venue';

CREATE MATERIALIZED VIEW IF NOT EXISTS solana_progress_mv TO solana_progress AS
SELECT 'solana' AS venue, max(block_time) AS through, max(slot) AS slot
FROM solana_trades;

-- FIFO per wallet and mint, kept as trades arrive (pipelines/process/solana/fifo-refresh.ts):
-- after each batch, the touched pairs' new legs are folded onto their stored state with the one
-- FIFO core (core/domain/fifo-sql.ts); a leg older than the state's last one refolds the pair.
-- Costs and proceeds are the legs' usd_micro (micro-USD). The receipt reads it by wallet.
CREATE TABLE IF NOT EXISTS solana_fifo_state
(
    wallet          String COMMENT 'base58 address of the wallet',
    mint            String COMMENT 'base58 address of the token mint',
    legs            UInt64 COMMENT 'trades folded into the state (the version: it only grows)',
    through         Tuple(t DateTime('UTC'), slot UInt64, signature String, side Int8) COMMENT 'key of the last folded trade (block time, slot, signature, side: 1 buy, -1 sell)',
    state           Tuple(lots Array(Tuple(qty Int256, cost Int256, opened_at UInt32)), realized Int256, sells UInt64, winning_sells UInt64, unmatched_qty Int256, matched_cost Int256, spent Int256, received Int256) COMMENT 'FIFO state (core/domain/fifo-sql.ts FIFO_STATE_TYPE): open lots (token raw units, micro-USD cost, opening unix second) and sums in micro-USD',
    unmatched_sells UInt64 COMMENT 'sells with quantity not covered by open lots',
    closed_holds    Array(UInt32) COMMENT 'hold in seconds of each lot a sell closed (its last unit sold)'
)
ENGINE = ReplacingMergeTree(legs)
ORDER BY (wallet, mint)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'FIFO realized PnL state per Solana venue wallet and mint, in micro-USD, folded as trades arrive. Key: (wallet, mint); latest by legs';
