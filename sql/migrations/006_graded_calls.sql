-- Calls with their 1 h forward return and the token's run, as a parameterized view:
--   graded_calls(chain = 4663, chain_time = <unix seconds of the newest block>, author = '' | '<handle>')
-- entry = first swap price at or after the call; exit = last swap price at or before call + 1 h;
-- a call is graded when the chain has run an hour past it and the token traded in that hour.
-- The run of a token is its becoming real. Prices are WETH per token unit; only ratios are used.
CREATE VIEW IF NOT EXISTS graded_calls AS
WITH
    c AS
    (
        SELECT author, token, min(called_at) AS called_at, min(captured_at) AS captured_at,
               argMinMerge(first_post) AS post_id, uniqExactMerge(mentions) AS mentions
        FROM calls
        WHERE {author:String} = '' OR author = {author:String}
        GROUP BY author, token
    ),
    px AS
    (
        SELECT token, block_time, toFloat64(weth_in + weth_out) / toFloat64(token_in + token_out) AS price
        FROM swaps
        WHERE chain_id = {chain:UInt32} AND token_in + token_out > 0 AND token IN (SELECT token FROM c)
    ),
    entry AS
    (
        SELECT c.author AS author, c.token AS token, px.price AS entry_price, px.block_time AS entry_at
        FROM c ASOF LEFT JOIN px ON px.token = c.token AND px.block_time >= c.called_at
    ),
    exit AS
    (
        SELECT c.author AS author, c.token AS token, px.price AS exit_price, px.block_time AS exit_at
        FROM c ASOF LEFT JOIN px ON px.token = c.token AND px.block_time <= c.called_at + 3600
    )
SELECT
    c.author AS author, c.token AS token, c.called_at AS called_at, c.captured_at AS captured_at,
    c.post_id AS post_id, c.mentions AS mentions,
    if({chain_time:UInt32} >= toUnixTimestamp(c.called_at) + 3600 AND entry.entry_price > 0
         AND toUnixTimestamp(entry.entry_at) > 0 AND entry.entry_at <= c.called_at + 3600 AND exit.exit_at >= entry.entry_at,
       exit.exit_price / entry.entry_price - 1, NULL) AS return_1h,
    r.real_at AS run_at
FROM c
LEFT JOIN entry ON entry.author = c.author AND entry.token = c.token
LEFT JOIN exit ON exit.author = c.author AND exit.token = c.token
LEFT JOIN (SELECT token, min(real_at) AS real_at FROM token_real WHERE chain_id = {chain:UInt32} GROUP BY token) AS r ON r.token = c.token
SETTINGS join_use_nulls = 0;
