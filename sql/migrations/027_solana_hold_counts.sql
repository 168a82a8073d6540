-- The Solana FIFO kept bounded per fold (issue 12): a fold used to rewrite every closed lot's hold
-- of a pair into its state row (closed_holds grew with the pair's history, and each fold copied
-- it). Now a fold's state row carries only the holds of the lots its own sells closed
-- (holds_added), and a view counts them per wallet, mint and hold: the receipt's median hold reads
-- the wallet's counts by key, and no fold touches what earlier folds closed.
ALTER TABLE solana_fifo_state ADD COLUMN IF NOT EXISTS holds_added Array(UInt32) COMMENT 'hold in seconds of each lot closed by the sells this fold added (counted into solana_hold_counts by a view)';

CREATE TABLE IF NOT EXISTS solana_hold_counts
(
    wallet       String COMMENT 'base58 address of the wallet',
    mint         String COMMENT 'base58 address of the token mint',
    hold_seconds UInt32 COMMENT 'hold of a closed lot: the block time of the sell that took its last unit - the block time of its buy, seconds',
    lots         SimpleAggregateFunction(sum, UInt64) COMMENT 'closed lots of the wallet and mint with this hold'
)
ENGINE = AggregatingMergeTree
ORDER BY (wallet, mint, hold_seconds)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'Closed-lot holds per Solana venue wallet and mint, counted per hold (the receipt''s median hold). Key: (wallet, mint, hold_seconds)';

CREATE MATERIALIZED VIEW IF NOT EXISTS solana_hold_counts_mv TO solana_hold_counts AS
SELECT wallet, mint, h AS hold_seconds, count() AS lots
FROM solana_fifo_state ARRAY JOIN holds_added AS h
GROUP BY wallet, mint, hold_seconds;

-- States folded before this migration: their closed holds, once.
INSERT INTO solana_hold_counts
SELECT wallet, mint, h AS hold_seconds, count() AS lots
FROM (SELECT wallet, mint, argMax(closed_holds, legs) AS holds FROM solana_fifo_state GROUP BY wallet, mint) ARRAY JOIN holds AS h
WHERE (SELECT count() FROM solana_hold_counts) = 0
GROUP BY wallet, mint, hold_seconds;

ALTER TABLE solana_fifo_state DROP COLUMN IF EXISTS closed_holds;
