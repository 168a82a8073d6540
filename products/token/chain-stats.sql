-- Whole-chain totals for /stats: one keyed read of chain_totals (kept by views and by the
-- serving refresh as batches arrive; see migration 013).
SELECT
    sum(blocks)          AS blocks_indexed,
    max(last_block_time) AS last_block_time,
    sum(creations)       AS tokens_launched,
    sum(pools)           AS pools,
    sum(transfers)       AS transfers,
    sum(tokens_traded)   AS tokens_traded,
    sum(swaps)           AS swaps,
    sum(weth_volume)     AS weth_volume,
    sum(traders)         AS traders
FROM chain_totals
WHERE chain_id = {chain:UInt32}
