-- The batch journal: before a processor inserts a batch it records the batch's block range
-- and its deduplication token here. After a crash the first batch is re-formed to exactly
-- that range with that token, so every table it had reached deduplicates the retry.
CREATE TABLE IF NOT EXISTS pipeline_batches
(
    consumer    String,
    first_block UInt64,
    last_block  UInt64,
    token       String,
    planned_at  DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(planned_at)
ORDER BY consumer;
