-- For the given tokens that are not real yet, find the first block at whose end the token's
-- cumulative swaps, distinct traders and WETH volume all meet the thresholds, and record it.
-- Idempotent: recomputing gives the same block, and token_real keeps one row per token.
INSERT INTO token_real (chain_id, token, real_block, real_at)
WITH r AS
(
SELECT token, min(block_number) AS real_block
FROM
(
    SELECT
        a.token AS token,
        a.block_number AS block_number,
        sum(a.swaps) OVER w AS cum_swaps,
        sum(a.volume) OVER w AS cum_volume,
        sum(ifNull(t.new_traders, 0)) OVER w AS cum_traders
    FROM
    (
        SELECT token, block_number, sum(swaps) AS swaps, sum(weth_volume) AS volume
        FROM token_block_activity
        WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)}
          AND token NOT IN (SELECT token FROM token_real WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)})
        GROUP BY token, block_number
    ) AS a
    LEFT JOIN
    (
        SELECT token, first_block AS block_number, count() AS new_traders
        FROM
        (
            SELECT token, trader, min(first_block) AS first_block
            FROM token_trader_first
            WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)}
            GROUP BY token, trader
        )
        GROUP BY token, first_block
    ) AS t ON a.token = t.token AND a.block_number = t.block_number
    WINDOW w AS (PARTITION BY a.token ORDER BY a.block_number ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
WHERE cum_swaps >= {min_swaps:UInt64} AND cum_traders >= {min_traders:UInt64} AND cum_volume >= {min_volume:UInt256}
GROUP BY token
)
SELECT {chain:UInt32} AS chain_id, r.token, r.real_block, b.timestamp AS real_at
FROM r
-- Only the blocks found: a keyed read of chain_blocks, never the whole table.
LEFT JOIN (SELECT number, timestamp FROM chain_blocks WHERE chain_id = {chain:UInt32} AND number IN (SELECT real_block FROM r)) AS b ON b.number = r.real_block
