-- Token stats for one token: activity from the token_activity view, launch facts from the
-- contract creation. Aggregate states are merged here; rows may not be merged on disk yet.
WITH
    act AS
    (
        SELECT
            count()                AS n,
            sum(swaps)             AS swaps,
            sum(weth_volume)       AS weth_volume,
            uniqExactMerge(traders) AS traders,
            min(first_swap_block)  AS first_swap_block,
            max(last_swap_block)   AS last_swap_block,
            max(last_swap_time)    AS last_swap_time
        FROM token_activity
        WHERE chain_id = {chain:UInt32} AND token = {token:String}
    ),
    cr AS
    (
        SELECT count() AS created, any(deployer) AS deployer, any(block_number) AS created_block, any(created_at) AS created_at
        FROM contract_creations
        WHERE chain_id = {chain:UInt32} AND address = {token:String}
    )
SELECT act.*, cr.*
FROM act, cr
