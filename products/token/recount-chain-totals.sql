-- Whole-chain totals recounted from the raw tables: after a reorg (aggregates cannot subtract
-- orphaned rows) and once on a data dir from before chain_totals existed. Not on a per-block path.
INSERT INTO chain_totals
SELECT {chain:UInt32}, sum(blocks), max(last_block_time), sum(creations), sum(pools), sum(transfers), sum(swaps), sum(weth_volume), sum(traders), sum(tokens_traded)
FROM
(
    SELECT count() AS blocks, max(timestamp) AS last_block_time, 0 AS creations, 0 AS pools, 0 AS transfers, 0 AS swaps,
           toUInt256(0) AS weth_volume, 0 AS traders, 0 AS tokens_traded
    FROM chain_blocks WHERE chain_id = {chain:UInt32}
    UNION ALL SELECT 0, toDateTime(0), count(), 0, 0, 0, toUInt256(0), 0, 0 FROM contract_creations WHERE chain_id = {chain:UInt32}
    UNION ALL SELECT 0, toDateTime(0), 0, count(), 0, 0, toUInt256(0), 0, 0 FROM pools WHERE chain_id = {chain:UInt32}
    UNION ALL SELECT 0, toDateTime(0), 0, 0, count(), 0, toUInt256(0), 0, 0 FROM erc20_transfers WHERE chain_id = {chain:UInt32}
    UNION ALL SELECT 0, toDateTime(0), 0, 0, 0, count(), sum(weth_in + weth_out), uniqExact(trader), uniqExact(token) FROM swaps WHERE chain_id = {chain:UInt32}
)
