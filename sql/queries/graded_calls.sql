-- Every call (an account's first mention of a token) with what grading needs: the entry price
-- (first swap at or after the call), the exit price (last swap at or before call + 1 h) and
-- when the token's run began (it became real). Prices are WETH per token unit; only their
-- ratio is used.
WITH
    c AS
    (
        SELECT author, token, min(called_at) AS called_at, min(captured_at) AS captured_at,
               argMinMerge(first_post) AS post_id, uniqExactMerge(mentions) AS mentions
        FROM calls
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
    c.author AS author, c.token AS token, toUnixTimestamp(c.called_at) AS called_at, toUnixTimestamp(c.captured_at) AS captured_at,
    c.post_id AS post_id, c.mentions AS mentions,
    entry.entry_price AS entry_price, toUnixTimestamp(entry.entry_at) AS entry_at,
    exit.exit_price AS exit_price, toUnixTimestamp(exit.exit_at) AS exit_at,
    ifNull(toUnixTimestamp(r.real_at), 0) AS run_at
FROM c
LEFT JOIN entry ON entry.author = c.author AND entry.token = c.token
LEFT JOIN exit ON exit.author = c.author AND exit.token = c.token
LEFT JOIN (SELECT token, min(real_at) AS real_at FROM token_real WHERE chain_id = {chain:UInt32} GROUP BY token) AS r ON r.token = c.token
SETTINGS join_use_nulls = 0
