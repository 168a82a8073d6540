-- The facts of token_state that freeze when they happen, for the tokens ({facts}) whose facts the
-- chain processor does not keep (products/token/token-facts.ts): the creation, the launch, the
-- first real block, the pre-launch distribution and deployer kept from before (the distribution
-- froze at launch; the deployer, the newest a row named, is named on when a reorg took the
-- creation away, also by a tombstone written before tombstones named it), and the
-- liquidity of their launch pools (keyed by the pool, found through the launch). Branches of
-- token-state-sources.sql. Keys: contract_creations (chain_id, address), launches / token_real /
-- token_state (chain_id, token), pool_liquidity (chain_id, pool).
SELECT 'created', address,
       formatRowNoNewline('JSONEachRow', any(deployer) AS deployer, any(name) AS name, any(symbol) AS symbol,
           any(decimals) AS decimals, any(block_number) AS created_block, any(created_at) AS created_at)
FROM contract_creations WHERE chain_id = {chain:UInt32} AND address IN {facts:Array(String)} GROUP BY address
UNION ALL
SELECT 'launched', token,
       formatRowNoNewline('JSONEachRow', any(pool) AS launch_pool, any(protocol) AS launch_protocol, any(block_number) AS launch_block,
           any(launched_at) AS launched_at, toUnixTimestamp64Micro(any(visible_at)) AS visible_us)
FROM launches WHERE chain_id = {chain:UInt32} AND token IN {facts:Array(String)} GROUP BY token
UNION ALL
SELECT 'real', token,
       formatRowNoNewline('JSONEachRow', min(real_block) AS first_real_block, argMin(real_at, real_block) AS first_real_at)
FROM token_real WHERE chain_id = {chain:UInt32} AND token IN {facts:Array(String)} GROUP BY token
UNION ALL
SELECT 'kept', token, formatRowNoNewline('JSONEachRow', argMax(prelaunch_recipients, version) AS prelaunch_recipients, argMaxIf(deployer, version, deployer != '') AS deployer)
FROM token_state WHERE chain_id = {chain:UInt32} AND token IN {facts:Array(String)} GROUP BY token
UNION ALL
SELECT 'liquidity', pool, formatRowNoNewline('JSONEachRow', sum(added) AS liquidity_added, sum(removed) AS liquidity_removed)
FROM pool_liquidity
WHERE chain_id = {chain:UInt32}
  AND pool IN (SELECT pool FROM launches WHERE chain_id = {chain:UInt32} AND token IN {facts:Array(String)})
GROUP BY pool
