-- The liquidity of launch pools the chain processor knows ({pools}: the kept launches of a batch's
-- tokens), keyed by the pool (pool_liquidity (chain_id, pool)). A branch of token-state-sources.sql.
SELECT 'liquidity', pool, formatRowNoNewline('JSONEachRow', sum(added) AS liquidity_added, sum(removed) AS liquidity_removed)
FROM pool_liquidity WHERE chain_id = {chain:UInt32} AND pool IN {pools:Array(String)} GROUP BY pool
