-- Liquidity per (pool, provider), kept as events arrive: who can still pull a pool's liquidity
-- (the `lp` of measured-caller alerts) is one keyed read per pool, not a pass over every
-- liquidity event of the chain (liquidity_events is ordered by block).
CREATE TABLE IF NOT EXISTS pool_providers
(
    chain_id UInt32,
    pool     String,
    provider String,
    added    UInt256,
    removed  UInt256
)
ENGINE = SummingMergeTree
ORDER BY (chain_id, pool, provider)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS pool_providers_mv TO pool_providers AS
SELECT chain_id, pool, provider, sumIf(liquidity, kind = 'mint') AS added, sumIf(liquidity, kind = 'burn') AS removed
FROM liquidity_events
GROUP BY chain_id, pool, provider;

INSERT INTO pool_providers
SELECT chain_id, pool, provider, sumIf(liquidity, kind = 'mint'), sumIf(liquidity, kind = 'burn')
FROM liquidity_events FINAL
WHERE (SELECT count() FROM pool_providers) = 0
GROUP BY chain_id, pool, provider;
