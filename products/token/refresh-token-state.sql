-- Refresh token_state for the tokens a batch touched ({tokens}), reading every input by key:
-- contract_creations (chain_id, address), launches / token_activity / token_real /
-- token_last_swap / token_supply (chain_id, token), pool_liquidity (chain_id, pool),
-- price_candles (pair, minute) over the quotes' time range, transfers_by_token
-- (chain_id, token, block) for the pre-launch distribution of {launched} tokens (those whose
-- launch this batch ingested: the fact freezes at launch and is carried over afterwards).
-- A token with no creation and no launch left (a reorg removed them) gets present = 0.
INSERT INTO token_state
WITH
    cr AS
    (
        SELECT address AS token, any(deployer) AS deployer, any(name) AS name, any(symbol) AS symbol,
               any(decimals) AS decimals, any(block_number) AS created_block, any(created_at) AS created_at
        FROM contract_creations WHERE chain_id = {chain:UInt32} AND address IN {tokens:Array(String)} GROUP BY address
    ),
    la AS
    (
        SELECT token, any(pool) AS pool, any(protocol) AS protocol, any(block_number) AS launch_block,
               any(launched_at) AS launched_at, any(visible_at) AS visible_at
        FROM launches WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
    ),
    act AS
    (
        SELECT token, sum(swaps) AS swaps, sum(weth_volume) AS weth_volume, uniqExactMerge(traders) AS traders,
               min(first_swap_block) AS first_swap_block, max(last_swap_block) AS last_swap_block, max(last_swap_time) AS last_swap_time
        FROM token_activity WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
    ),
    re AS
    (
        SELECT token, min(real_block) AS first_real_block, argMin(real_at, real_block) AS first_real_at
        FROM token_real WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
    ),
    q AS
    (
        SELECT token, argMaxMerge(quote) AS quote FROM token_last_swap
        WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
    ),
    su AS
    (
        SELECT token, sum(minted) AS minted, sum(burned) AS burned FROM token_supply
        WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
    ),
    li AS
    (
        SELECT pool, sum(added) AS added, sum(removed) AS removed FROM pool_liquidity
        WHERE chain_id = {chain:UInt32} AND pool IN (SELECT pool FROM la) GROUP BY pool
    ),
    prev AS
    (
        SELECT token, argMax(prelaunch_recipients, version) AS recipients
        FROM token_state WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} GROUP BY token
    ),
    prep AS
    (
        SELECT t.token AS token, uniqExact(t.to_address) AS recipients
        FROM transfers_by_token AS t
        INNER JOIN cr ON cr.token = t.token
        INNER JOIN la ON la.token = t.token
        WHERE t.chain_id = {chain:UInt32} AND t.token IN {launched:Array(String)}
          AND t.from_address = cr.deployer
          AND t.to_address NOT IN (cr.deployer, '0x0000000000000000000000000000000000000000')
          AND t.block_number < la.launch_block
        GROUP BY t.token
    )
SELECT
    {chain:UInt32} AS chain_id,
    token_key AS token,
    cr.token != '' OR la.token != '' AS present,
    cr.deployer AS deployer, cr.name AS name, cr.symbol AS symbol, lower(cr.symbol) AS symbol_lower, lower(cr.name) AS name_lower,
    cr.decimals AS decimals, cr.token != '' AS created, cr.created_block AS created_block, cr.created_at AS created_at,
    la.token != '' AS launched, la.pool AS launch_pool, la.protocol AS launch_protocol, la.launch_block AS launch_block,
    la.launched_at AS launched_at, toUnixTimestamp64Micro(la.visible_at) AS visible_us,
    act.swaps AS swaps, act.weth_volume AS weth_volume, act.traders AS traders,
    act.first_swap_block AS first_swap_block, act.last_swap_block AS last_swap_block, act.last_swap_time AS last_swap_time,
    re.token != '' AS is_real, re.first_real_block AS real_block, re.first_real_at AS real_at,
    q.token != '' AS quoted, q.quote AS quote,
    if(q.token != '' AND tupleElement(q.quote, 2) > 0,
       toFloat64(tupleElement(q.quote, 1)) / toFloat64(tupleElement(q.quote, 2)) * pow(10, ifNull(cr.decimals, 18) - 18), 0) AS price_weth,
    if(px.minute = toDateTime(0), NULL, toString(px.close)) AS eth_usd,
    su.minted AS minted, su.burned AS burned,
    li.added AS liquidity_added, li.removed AS liquidity_removed,
    if(token_key IN {launched:Array(String)}, ifNull(prep.recipients, 0), ifNull(prev.recipients, 0)) AS prelaunch_recipients,
    toUInt32(multiIf(act.swaps > 0, toUnixTimestamp(act.last_swap_time), la.token != '', toUnixTimestamp(la.launched_at),
                     cr.token != '', toUnixTimestamp(cr.created_at), 0)) AS last_activity,
    {version:UInt64} AS version
FROM (SELECT arrayJoin({tokens:Array(String)}) AS token_key, 1 AS one) AS k
LEFT JOIN cr ON cr.token = token_key
LEFT JOIN la ON la.token = token_key
LEFT JOIN act ON act.token = token_key
LEFT JOIN re ON re.token = token_key
LEFT JOIN q ON q.token = token_key
LEFT JOIN su ON su.token = token_key
LEFT JOIN li ON li.pool = la.pool
LEFT JOIN prev ON prev.token = token_key
LEFT JOIN prep ON prep.token = token_key
-- The ETH/USD close of the minute the quote was observed in (the latest candle at or before it),
-- read over the range of this batch's quote times only.
ASOF LEFT JOIN
(
    SELECT 1 AS one, minute, close FROM price_candles
    WHERE pair = 'ETH/USD'
      AND minute >= (SELECT min(tupleElement(quote, 4)) FROM q) - INTERVAL 1 DAY
      AND minute <= (SELECT max(tupleElement(quote, 4)) FROM q)
) AS px ON px.one = k.one AND tupleElement(q.quote, 4) >= px.minute
-- Keys that never were tokens of ours (WETH, untracked ERC20s) get no row; a removed one gets its tombstone.
WHERE present OR prev.token != ''
SETTINGS join_use_nulls = 0
