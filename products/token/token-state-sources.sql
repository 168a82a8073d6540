-- The inputs of token_state that move with every swap and transfer, for the tokens a batch touched
-- ({tokens}), every source read by key in one statement: one row per (source, key) with the
-- source's fields as a JSON object, which products/token/token-refresh.ts merges per token and
-- token-state-insert.sql writes. The facts that freeze when they happen (creation, launch, the
-- first real block, the pre-launch distribution) are token-frozen-sources.sql, read only for the
-- tokens the chain processor does not keep them for; the launch pool's liquidity is
-- token-liquidity-source.sql for the launch pools kept, else the frozen read's own branch.
-- One UNION ALL instead of one statement joining the sources: most of a live batch's refresh is
-- the engine's planning, and a join of keyed reads plans about three times slower than branches.
-- Keys: token_activity / token_last_swap / token_supply (chain_id, token).
SELECT 'activity' AS source, token AS key,
       formatRowNoNewline('JSONEachRow', sum(swaps) AS swaps, sum(weth_volume) AS weth_volume, uniqExactMerge(traders) AS traders,
           min(first_swap_block) AS first_swap_block, max(last_swap_block) AS last_swap_block, max(last_swap_time) AS last_swap_time) AS fields
FROM token_activity WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
UNION ALL
SELECT 'quoted', token, formatRowNoNewline('JSONEachRow', argMaxMerge(quote) AS quote, toUnixTimestamp(tupleElement(quote, 4)) AS quoted_at,
           if(tupleElement(quote, 2) > 0, toFloat64(tupleElement(quote, 1)) / toFloat64(tupleElement(quote, 2)), 0) AS quote_ratio)
FROM token_last_swap WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
UNION ALL
SELECT 'supply', token, formatRowNoNewline('JSONEachRow', sum(minted) AS minted, sum(burned) AS burned)
FROM token_supply WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
