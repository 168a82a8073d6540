-- Chain 5042 is read by /arc only, from its own tables (migration 024; core/chains.ts
-- keepsTokenProducts). Its rows still go to the raw tables (erc20_transfers, liquidity_events,
-- pools), but the views that keep the followed chain's transfer paths, holder balances, pool
-- liquidity and token pools (the token records, structure, scans and composite signals read
-- them, for chain 4663 alone) no longer copy them: on the default world they were most of chain
-- 5042's largest insert. The views are recreated as their migrations define them (013, 016, 017,
-- 018, 020, 023), with the arc chain left out, and its rows already copied are deleted.

DROP VIEW IF EXISTS transfers_by_token_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS transfers_by_token_mv TO transfers_by_token AS
SELECT chain_id, token, block_number, log_index, tx_hash, from_address, to_address, value, block_time
FROM erc20_transfers
WHERE chain_id != 5042;

DROP VIEW IF EXISTS transfers_by_wallet_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS transfers_by_wallet_mv TO transfers_by_wallet AS
SELECT chain_id, side.1 AS wallet, token, block_number, log_index, side.2 AS direction, side.3 AS counterparty, value, tx_hash
FROM erc20_transfers
ARRAY JOIN [(to_address, 'in', from_address), (from_address, 'out', to_address)] AS side
WHERE side.1 != '0x0000000000000000000000000000000000000000' AND chain_id != 5042;

DROP VIEW IF EXISTS holder_deltas_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS holder_deltas_mv TO holder_deltas AS
SELECT chain_id, token, block_number, side.1 AS wallet, side.2 AS delta
FROM erc20_transfers
ARRAY JOIN [(from_address, -toInt256(value)), (to_address, toInt256(value))] AS side
WHERE side.1 != '0x0000000000000000000000000000000000000000' AND chain_id != 5042;

DROP VIEW IF EXISTS token_supply_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_supply_mv TO token_supply AS
SELECT
    chain_id,
    token,
    sumIf(value, from_address = '0x0000000000000000000000000000000000000000') AS minted,
    sumIf(value, to_address = '0x0000000000000000000000000000000000000000') AS burned
FROM erc20_transfers
WHERE (from_address = '0x0000000000000000000000000000000000000000' OR to_address = '0x0000000000000000000000000000000000000000') AND chain_id != 5042
GROUP BY chain_id, token;

DROP VIEW IF EXISTS token_wallet_links_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_wallet_links_mv TO token_wallet_links AS
SELECT chain_id, token, pair.1 AS wallet, pair.2 AS peer, min(block_number) AS first_block, toUInt64(count()) AS transfers
FROM erc20_transfers
ARRAY JOIN [(from_address, to_address), (to_address, from_address)] AS pair
WHERE from_address != to_address
  AND from_address != '0x0000000000000000000000000000000000000000' AND to_address != '0x0000000000000000000000000000000000000000'
  AND chain_id != 5042
GROUP BY chain_id, token, wallet, peer;

DROP VIEW IF EXISTS pool_liquidity_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS pool_liquidity_mv TO pool_liquidity AS
SELECT chain_id, pool, sumIf(liquidity, kind = 'mint') AS added, sumIf(liquidity, kind = 'burn') AS removed
FROM liquidity_events
WHERE chain_id != 5042
GROUP BY chain_id, pool;

DROP VIEW IF EXISTS pool_providers_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS pool_providers_mv TO pool_providers AS
SELECT chain_id, pool, provider, sumIf(liquidity, kind = 'mint') AS added, sumIf(liquidity, kind = 'burn') AS removed
FROM liquidity_events
WHERE chain_id != 5042
GROUP BY chain_id, pool, provider;

DROP VIEW IF EXISTS pool_first_mint_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS pool_first_mint_mv TO pool_first_mint AS
SELECT chain_id, pool, argMinState((amount0, amount1, liquidity, provider, block_number, block_time), (block_number, log_index)) AS first
FROM liquidity_events
WHERE kind = 'mint' AND chain_id != 5042
GROUP BY chain_id, pool;

DROP VIEW IF EXISTS pool_liquidity_minute_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS pool_liquidity_minute_mv TO pool_liquidity_minute AS
SELECT chain_id, pool, toStartOfMinute(block_time) AS minute, sumIf(liquidity, kind = 'mint') AS added, sumIf(liquidity, kind = 'burn') AS removed
FROM liquidity_events
WHERE chain_id != 5042
GROUP BY chain_id, pool, minute;

DROP VIEW IF EXISTS token_pools_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS token_pools_mv TO token_pools AS
SELECT chain_id, side AS token, if(protocol = 'v4', factory, pool) AS pool, protocol, block_number
FROM pools
ARRAY JOIN [token0, token1] AS side
WHERE chain_id != 5042;

DELETE FROM transfers_by_token WHERE chain_id = 5042;

DELETE FROM transfers_by_wallet WHERE chain_id = 5042;

DELETE FROM holder_deltas WHERE chain_id = 5042;

DELETE FROM holder_balances WHERE chain_id = 5042;

DELETE FROM token_supply WHERE chain_id = 5042;

DELETE FROM token_wallet_links WHERE chain_id = 5042;

DELETE FROM pool_liquidity WHERE chain_id = 5042;

DELETE FROM pool_providers WHERE chain_id = 5042;

DELETE FROM pool_first_mint WHERE chain_id = 5042;

DELETE FROM pool_liquidity_minute WHERE chain_id = 5042;

DELETE FROM token_pools WHERE chain_id = 5042;
