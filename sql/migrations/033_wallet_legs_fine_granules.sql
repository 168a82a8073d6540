-- Each live batch's FIFO fold reads the legs of the few wallet-tokens it traded by key
-- (products/wallet/fifo-refresh.ts). With the default 8192-row granules every pair cost a granule
-- in each of the table's parts: about 25k legs read for a live batch's 2-7 pairs on the default
-- world, 56-67 ms of engine CPU a fold; with 256-row granules about 800 legs and 45-51 ms.
-- index_granularity cannot be altered, so the table is rebuilt under its name and its view
-- recreated as migration 021 defines it (as 016 did for the token tables).

CREATE TABLE IF NOT EXISTS wallet_legs_fine AS wallet_legs
ENGINE = ReplacingMergeTree
ORDER BY (chain_id, wallet, token, block_number, log_index)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000
COMMENT 'FIFO legs: one row per swap event, by wallet and token in chain order (view of swaps)';

DROP VIEW IF EXISTS wallet_legs_mv;

INSERT INTO wallet_legs_fine SELECT * FROM wallet_legs WHERE (SELECT count() FROM wallet_legs_fine) = 0;

RENAME TABLE wallet_legs TO wallet_legs_coarse, wallet_legs_fine TO wallet_legs;

DROP TABLE IF EXISTS wallet_legs_coarse;

CREATE MATERIALIZED VIEW IF NOT EXISTS wallet_legs_mv TO wallet_legs AS
SELECT chain_id, trader AS wallet, token, block_number, log_index, block_time, tx_hash,
       toInt8(if(token_out > token_in, 1, -1)) AS side,
       if(token_out > token_in, toInt256(token_out) - toInt256(token_in), toInt256(token_in) - toInt256(token_out)) AS qty,
       if(token_out > token_in, toInt256(weth_in) - toInt256(weth_out), toInt256(weth_out) - toInt256(weth_in)) AS cost
FROM swaps
WHERE token_out != token_in;
