-- One row per token of a chain (created or launched): launch facts, activity, the exact block
-- it became real, the latest swap (price quote), supply, launch-pool liquidity and how many
-- wallets the deployer sent supply to before launch. The serving layer loads this once per
-- watermark and answers token, deployer, feed, search and leaderboard calls from memory.
WITH
    tokens AS
    (
        SELECT token, 1 AS one FROM (SELECT address AS token FROM contract_creations WHERE chain_id = {chain:UInt32}
                           UNION DISTINCT SELECT token FROM launches WHERE chain_id = {chain:UInt32})
    ),
    cr AS
    (
        SELECT address AS token, any(deployer) AS deployer, any(name) AS name, any(symbol) AS symbol,
               any(decimals) AS decimals, any(block_number) AS created_block, any(created_at) AS created_at
        FROM contract_creations WHERE chain_id = {chain:UInt32} GROUP BY address
    ),
    la AS
    (
        SELECT token, any(pool) AS pool, any(protocol) AS protocol, any(block_number) AS launch_block,
               any(launched_at) AS launched_at, any(visible_at) AS visible_at
        FROM launches WHERE chain_id = {chain:UInt32} GROUP BY token
    ),
    act AS
    (
        SELECT token, sum(swaps) AS swaps, sum(weth_volume) AS weth_volume, uniqExactMerge(traders) AS traders,
               min(first_swap_block) AS first_swap_block, max(last_swap_block) AS last_swap_block, max(last_swap_time) AS last_swap_time
        FROM token_activity WHERE chain_id = {chain:UInt32} GROUP BY token
    ),
    re AS
    (
        SELECT token, min(real_block) AS first_real_block, argMin(real_at, real_block) AS first_real_at
        FROM token_real WHERE chain_id = {chain:UInt32} GROUP BY token
    ),
    q AS
    (
        SELECT token, argMaxMerge(quote) AS quote FROM token_last_swap WHERE chain_id = {chain:UInt32} GROUP BY token
    ),
    su AS
    (
        SELECT token, sum(minted) AS minted, sum(burned) AS burned FROM token_supply WHERE chain_id = {chain:UInt32} GROUP BY token
    ),
    li AS
    (
        SELECT pool, sum(added) AS added, sum(removed) AS removed FROM pool_liquidity WHERE chain_id = {chain:UInt32} GROUP BY pool
    ),
    prep AS
    (
        SELECT t.token AS token, uniqExact(t.to_address) AS recipients
        FROM erc20_transfers AS t
        INNER JOIN cr ON cr.token = t.token
        LEFT JOIN la ON la.token = t.token
        WHERE t.chain_id = {chain:UInt32}
          AND t.from_address = cr.deployer
          AND t.to_address NOT IN (cr.deployer, '0x0000000000000000000000000000000000000000')
          AND t.block_number < if(la.launch_block = 0, 18446744073709551615, la.launch_block)
        GROUP BY t.token
    )
SELECT
    tokens.token AS token,
    cr.deployer AS deployer, cr.name AS name, cr.symbol AS symbol, cr.decimals AS decimals,
    cr.created_block AS created_block, cr.created_at AS created_at, cr.token != '' AS created,
    la.pool AS launch_pool, la.protocol AS launch_protocol, la.launch_block AS launch_block,
    la.launched_at AS launched_at, toUnixTimestamp64Micro(la.visible_at) AS visible_us, la.token != '' AS launched,
    act.swaps AS swaps, act.weth_volume AS weth_volume, act.traders AS traders,
    act.first_swap_block AS first_swap_block, act.last_swap_block AS last_swap_block, act.last_swap_time AS last_swap_time,
    re.first_real_block AS real_block, re.first_real_at AS real_at, re.token != '' AS is_real,
    q.quote AS quote, q.token != '' AS quoted,
    su.minted AS minted, su.burned AS burned,
    li.added AS liquidity_added, li.removed AS liquidity_removed,
    ifNull(prep.recipients, 0) AS prelaunch_recipients,
    if(px.minute = toDateTime(0), NULL, toString(px.close)) AS eth_usd
FROM tokens
LEFT JOIN cr ON cr.token = tokens.token
LEFT JOIN la ON la.token = tokens.token
LEFT JOIN act ON act.token = tokens.token
LEFT JOIN re ON re.token = tokens.token
LEFT JOIN q ON q.token = tokens.token
LEFT JOIN su ON su.token = tokens.token
LEFT JOIN li ON li.pool = la.pool
LEFT JOIN prep ON prep.token = tokens.token
-- The ETH/USD close of the minute the quote was observed in (the latest candle at or before it).
ASOF LEFT JOIN (SELECT 1 AS one, minute, close FROM price_candles WHERE pair = 'ETH/USD') AS px
    ON px.one = tokens.one AND tupleElement(q.quote, 4) >= px.minute
SETTINGS join_use_nulls = 0
