-- token_state rows for the tokens a batch touched, from their sources merged per token
-- (token-state-sources.sql, merged in products/token/token-state-inputs.ts), JSONEachRow in {rows};
-- a field a token has no source for takes its column's default (0, '', NULL). The engine derives
-- the rest here: lower-cased names, the WETH price of the last quote (its WETH per token unit,
-- `quote_ratio`, with decimals applied) and the ETH/USD close of the minute that quote was observed
-- in (the latest candle at or before it), read over the range of the batch's quote times only
-- ({quotedFrom} .. {quotedTo}). A live batch whose quotes are all in the hour before its head makes
-- the same rows in products/token/token-state-values.ts and inserts them as values instead.
INSERT INTO token_state
SELECT
    {chain:UInt32} AS chain_id,
    r.token AS token, present, deployer, name, symbol, lower(symbol) AS symbol_lower, lower(name) AS name_lower,
    decimals, created, created_block, created_at,
    launched, launch_pool, launch_protocol, launch_block, launched_at, visible_us,
    swaps, weth_volume, traders, first_swap_block, last_swap_block, last_swap_time,
    is_real, first_real_block AS real_block, first_real_at AS real_at,
    quoted, quote,
    if(quoted, quote_ratio * pow(10, ifNull(decimals, 18) - 18), 0) AS price_weth,
    if(px.minute = toDateTime(0), NULL, toString(px.close)) AS eth_usd,
    minted, burned, liquidity_added, liquidity_removed, prelaunch_recipients,
    toUInt32(multiIf(swaps > 0, toUnixTimestamp(last_swap_time), launched, toUnixTimestamp(launched_at),
                     created, toUnixTimestamp(created_at), 0)) AS last_activity,
    {version:UInt64} AS version
FROM
(
    SELECT *, 1 AS one FROM format(JSONEachRow, '
        token String, present UInt8,
        deployer String, name String, symbol String, decimals Nullable(UInt8), created UInt8, created_block UInt64, created_at DateTime(\'UTC\'),
        launched UInt8, launch_pool String, launch_protocol String, launch_block UInt64, launched_at DateTime(\'UTC\'), visible_us Int64,
        swaps UInt64, weth_volume UInt256, traders UInt64, first_swap_block UInt64, last_swap_block UInt64, last_swap_time DateTime(\'UTC\'),
        is_real UInt8, first_real_block UInt64, first_real_at DateTime(\'UTC\'),
        quoted UInt8, quote Tuple(UInt256, UInt256, String, DateTime(\'UTC\'), UInt64), quoted_at UInt32, quote_ratio Float64,
        minted UInt256, burned UInt256, liquidity_added UInt256, liquidity_removed UInt256, prelaunch_recipients UInt64',
        {rows:String})
) AS r
ASOF LEFT JOIN
(
    SELECT 1 AS one, minute, close FROM price_candles
    WHERE pair = 'ETH/USD' AND minute >= toDateTime({quotedFrom:UInt32}) AND minute <= toDateTime({quotedTo:UInt32})
) AS px ON px.one = r.one AND toDateTime(r.quoted_at) >= px.minute
SETTINGS join_use_nulls = 0
