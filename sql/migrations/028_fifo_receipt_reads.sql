-- Receipts on chain 4663 read by what they need, not by the wallet's whole sell history (issue 12):
-- how many sells had unmatched quantity is kept in each FIFO state (the fold adds its own), and the
-- closed lots' holds are counted per wallet, token and hold by a view, so the median hold reads the
-- wallet's distinct holds and the 30-day result one key range of fifo_sells.
ALTER TABLE fifo_state ADD COLUMN IF NOT EXISTS unmatched_sells UInt64 COMMENT 'sells so far whose quantity was not all covered by open lots (the rest had zero cost)';

CREATE TABLE IF NOT EXISTS fifo_hold_counts
(
    chain_id     UInt32 COMMENT 'chain',
    wallet       String COMMENT 'trader (lowercase 0x address)',
    token        String COMMENT 'token (lowercase 0x address)',
    hold_seconds UInt32 COMMENT 'hold of a closed lot: the time of the sell that took its last unit - the time of its buy, seconds',
    lots         SimpleAggregateFunction(sum, UInt64) COMMENT 'closed lots of the wallet and token with this hold'
)
ENGINE = AggregatingMergeTree
ORDER BY (chain_id, wallet, token, hold_seconds)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'Closed-lot holds per wallet and token, counted per hold (the receipt''s hold style). Key: (chain_id, wallet, token, hold_seconds)';

CREATE MATERIALIZED VIEW IF NOT EXISTS fifo_hold_counts_mv TO fifo_hold_counts AS
SELECT chain_id, wallet, token, h AS hold_seconds, count() AS lots
FROM fifo_state ARRAY JOIN sells_added AS s ARRAY JOIN s.closed_holds AS h
GROUP BY chain_id, wallet, token, hold_seconds;

-- States and sells folded before this migration, once: the holds counted, and each state with
-- unmatched sells written again (a newer version, no sells added) with its count.
INSERT INTO fifo_hold_counts
SELECT chain_id, wallet, token, h AS hold_seconds, count() AS lots
FROM fifo_sells FINAL ARRAY JOIN closed_holds AS h
WHERE (SELECT count() FROM fifo_hold_counts) = 0
GROUP BY chain_id, wallet, token, hold_seconds;

INSERT INTO fifo_state (chain_id, wallet, token, through_pos, legs, state, sells_added, version, unmatched_sells)
SELECT s.chain_id, s.wallet, s.token, s.pos, s.n, s.st, [], s.v + 1, u.unmatched
FROM (SELECT chain_id, wallet, token, argMax(through_pos, version) AS pos, argMax(legs, version) AS n, argMax(state, version) AS st, max(version) AS v
      FROM fifo_state GROUP BY chain_id, wallet, token) AS s
INNER JOIN (SELECT chain_id, wallet, token, countIf(unmatched_qty > 0) AS unmatched FROM fifo_sells FINAL GROUP BY chain_id, wallet, token HAVING unmatched > 0) AS u
ON s.chain_id = u.chain_id AND s.wallet = u.wallet AND s.token = u.token;
