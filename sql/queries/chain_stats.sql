-- Whole-chain totals for /stats.
SELECT
    (SELECT count() FROM chain_blocks WHERE chain_id = {chain:UInt32})       AS blocks_indexed,
    (SELECT max(timestamp) FROM chain_blocks WHERE chain_id = {chain:UInt32}) AS last_block_time,
    (SELECT count() FROM contract_creations WHERE chain_id = {chain:UInt32}) AS tokens_launched,
    (SELECT count() FROM pools WHERE chain_id = {chain:UInt32})              AS pools,
    (SELECT count() FROM erc20_transfers WHERE chain_id = {chain:UInt32})    AS transfers,
    act.*
FROM
(
    SELECT
        uniqExact(token)        AS tokens_traded,
        sum(swaps)              AS swaps,
        sum(weth_volume)        AS weth_volume,
        uniqExactMerge(traders) AS traders
    FROM token_activity
    WHERE chain_id = {chain:UInt32}
) AS act
