-- Watchlists, one per subscription key (by its hash). Customer data: kept here, durable, not in
-- the store. Every add or removal is a newer row of (key, token); the latest row says whether
-- the token is watched (watched = 0: removed).
CREATE TABLE IF NOT EXISTS watchlists
(
    key_hash   String,
    token      String,
    watched    UInt8,
    updated_at DateTime64(3, 'UTC'),
    version    UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (key_hash, token);
