-- The ETH/USD candles of the hour before a live batch's head ({candlesFrom} .. {candlesTo}), one
-- row per candle keyed by its minute (unix s): what the batch's token rows take their quote's
-- ETH/USD close from when every quote is inside that hour (products/token/token-state-values.ts),
-- so the rows are inserted as values. A branch of token-state-sources.sql; price_candles
-- (pair, minute) is read by key.
SELECT 'candle', toString(toUnixTimestamp(minute)), formatRowNoNewline('JSONEachRow', toString(close) AS close)
FROM price_candles WHERE pair = 'ETH/USD' AND minute >= toDateTime({candlesFrom:UInt32}) AND minute <= toDateTime({candlesTo:UInt32})
