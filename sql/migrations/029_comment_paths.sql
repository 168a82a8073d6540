-- Column comments that name the file defining a type follow it when it moves (issue 26: the FIFO
-- SQL moved from core/domain/ to the wallet product's folder). Applied migrations never change.
ALTER TABLE fifo_state COMMENT COLUMN state 'FIFO state (products/wallet/fifo-sql.ts): open lots oldest first (token qty, WETH wei cost, opened unix s); realized, unmatched, matched cost, spent and received in wei / token units; sell counts';

ALTER TABLE solana_fifo_state COMMENT COLUMN state 'FIFO state (products/wallet/fifo-sql.ts FIFO_STATE_TYPE): open lots (token raw units, micro-USD cost, opening unix second) and sums in micro-USD';
