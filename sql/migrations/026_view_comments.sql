-- Comments on the materialized views added by migrations 018-024 (the table catalogue, docs/tables.md,
-- names every table and view with what it keeps).

ALTER TABLE block_times_mv MODIFY COMMENT 'Materialized view: keeps block_times current from each insert into chain_blocks.';
ALTER TABLE fifo_sells_mv MODIFY COMMENT 'Materialized view: keeps fifo_sells current from each insert into fifo_state.';
ALTER TABLE holder_balances_mv MODIFY COMMENT 'Materialized view: keeps holder_balances current from each insert into holder_deltas.';
ALTER TABLE holder_deltas_mv MODIFY COMMENT 'Materialized view: keeps holder_deltas current from each insert into erc20_transfers.';
ALTER TABLE launches_by_time_mv MODIFY COMMENT 'Materialized view: keeps launches_by_time current from each insert into launches.';
ALTER TABLE mention_minute_mv MODIFY COMMENT 'Materialized view: keeps mention_minute current from each insert into mentions.';
ALTER TABLE pool_first_mint_mv MODIFY COMMENT 'Materialized view: keeps pool_first_mint current from each insert into liquidity_events.';
ALTER TABLE pool_liquidity_minute_mv MODIFY COMMENT 'Materialized view: keeps pool_liquidity_minute current from each insert into liquidity_events.';
ALTER TABLE token_minute_activity_mv MODIFY COMMENT 'Materialized view: keeps token_minute_activity current from each insert into swaps.';
ALTER TABLE token_pools_mv MODIFY COMMENT 'Materialized view: keeps token_pools current from each insert into pools.';
ALTER TABLE token_wallet_links_mv MODIFY COMMENT 'Materialized view: keeps token_wallet_links current from each insert into erc20_transfers.';
ALTER TABLE transfers_by_wallet_mv MODIFY COMMENT 'Materialized view: keeps transfers_by_wallet current from each insert into erc20_transfers.';
ALTER TABLE wallet_legs_mv MODIFY COMMENT 'Materialized view: keeps wallet_legs current from each insert into swaps.';
ALTER TABLE solana_progress_mv MODIFY COMMENT 'Materialized view: keeps solana_progress current from each insert into solana_trades.';
ALTER TABLE solana_wallet_activity_mv MODIFY COMMENT 'Materialized view: keeps solana_wallet_activity current from each insert into solana_trades.';
