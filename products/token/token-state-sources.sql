-- The inputs of token_state for the tokens a batch touched ({tokens}), every source read by key
-- in one statement: one row per (source, key) with the source's fields as a JSON object, which
-- products/token/token-refresh.ts merges per token and token-state-insert.sql writes.
-- One UNION ALL instead of one statement joining the sources: the engine plans a join of nine
-- keyed reads in about 35 ms and these branches in about 12 (most of a live batch's refresh is
-- planning). Keys: contract_creations (chain_id, address), launches / token_activity / token_real /
-- token_last_swap / token_supply / token_state (chain_id, token), pool_liquidity (chain_id, pool)
-- for the tokens' launch pools (key: the pool).
SELECT 'created' AS source, address AS key,
       formatRowNoNewline('JSONEachRow', any(deployer) AS deployer, any(name) AS name, any(symbol) AS symbol,
           any(decimals) AS decimals, any(block_number) AS created_block, any(created_at) AS created_at) AS fields
FROM contract_creations WHERE chain_id = {chain:UInt32} AND address IN {tokens:Array(String)} GROUP BY address
UNION ALL
SELECT 'launched', token,
       formatRowNoNewline('JSONEachRow', any(pool) AS launch_pool, any(protocol) AS launch_protocol, any(block_number) AS launch_block,
           any(launched_at) AS launched_at, toUnixTimestamp64Micro(any(visible_at)) AS visible_us)
FROM launches WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
UNION ALL
SELECT 'activity', token,
       formatRowNoNewline('JSONEachRow', sum(swaps) AS swaps, sum(weth_volume) AS weth_volume, uniqExactMerge(traders) AS traders,
           min(first_swap_block) AS first_swap_block, max(last_swap_block) AS last_swap_block, max(last_swap_time) AS last_swap_time)
FROM token_activity WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
UNION ALL
SELECT 'real', token,
       formatRowNoNewline('JSONEachRow', min(real_block) AS first_real_block, argMin(real_at, real_block) AS first_real_at)
FROM token_real WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
UNION ALL
SELECT 'quoted', token, formatRowNoNewline('JSONEachRow', argMaxMerge(quote) AS quote, toUnixTimestamp(tupleElement(quote, 4)) AS quoted_at)
FROM token_last_swap WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
UNION ALL
SELECT 'supply', token, formatRowNoNewline('JSONEachRow', sum(minted) AS minted, sum(burned) AS burned)
FROM token_supply WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
UNION ALL
SELECT 'liquidity', pool, formatRowNoNewline('JSONEachRow', sum(added) AS liquidity_added, sum(removed) AS liquidity_removed)
FROM pool_liquidity
WHERE chain_id = {chain:UInt32}
  AND pool IN (SELECT pool FROM launches WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)})
GROUP BY pool
UNION ALL
-- The pre-launch distribution kept from before (it froze at launch).
SELECT 'kept', token, formatRowNoNewline('JSONEachRow', argMax(prelaunch_recipients, version) AS prelaunch_recipients)
FROM token_state WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
