-- Alert webhooks, one per subscription key. The signing secret is kept in clear because every
-- delivery is signed with it; it is shown to the key holder once, at creation, and never again.
-- A removal is a newer row with deleted = 1.
CREATE TABLE IF NOT EXISTS webhooks
(
    key_hash   String,
    url        String,
    secret     String,
    created_at DateTime64(3, 'UTC'),
    deleted    UInt8,
    version    UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY key_hash;

-- One row per (key, alert) delivery, replaced as attempts go on: status is pending, retrying,
-- delivered or failed (given up after the attempt limit).
CREATE TABLE IF NOT EXISTS webhook_deliveries
(
    key_hash     String,
    delivery_id  String,
    event_id     String,
    kind         LowCardinality(String),
    url          String,
    status       LowCardinality(String),
    attempts     UInt16,
    last_code    Nullable(UInt16),
    last_error   String,
    created_at   DateTime64(3, 'UTC'),
    updated_at   DateTime64(3, 'UTC'),
    version      UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (key_hash, delivery_id)
TTL toDateTime(created_at) + INTERVAL 30 DAY;
