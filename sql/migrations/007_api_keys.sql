-- Subscription keys, hashed at rest: the key itself is shown once at creation and never stored.
-- prefix (svc_live_ plus 4 characters) names a key in lists and revocations.
CREATE TABLE IF NOT EXISTS api_keys
(
    key_hash   String,
    prefix     String,
    plan       LowCardinality(String),
    created_at DateTime64(3, 'UTC'),
    revoked_at Nullable(DateTime64(3, 'UTC')),
    version    UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY key_hash;
