-- The social consumers insert every batch with an insert_deduplication_token (see
-- pipelines/consumer/batch-token.ts), but a non-replicated table ignores the token unless it
-- keeps a deduplication window, and a materialized view's target deduplicates only with a
-- window of its own. Without these, a batch retried after an unacknowledged insert lands twice
-- in the raw table and in every view target. The window (in blocks) matches the chain tables'.

-- Raw tables, one per social topic (follow_events and follow_snapshots both from social.follows).
ALTER TABLE mentions MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE follow_events MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE follow_snapshots MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE tg_sightings MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE caller_mirrors MODIFY SETTING non_replicated_deduplication_window = 10000;

-- Targets of the views fed by those tables: mention_hourly_mv, calls_mv and
-- mentions_by_capture_mv (from mentions), tg_token_stats_mv (from tg_sightings).
ALTER TABLE mention_hourly MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE calls MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE mentions_by_capture MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE tg_token_stats MODIFY SETTING non_replicated_deduplication_window = 10000;

-- Targets of the views fed by calls (migration 012): calls_by_time_mv, calls_noted_mv and
-- caller_stats_calls_mv. caller_stats is also fed from call_grades, which the grader inserts
-- without a token; such inserts do not deduplicate in dependent views, so the window drops
-- nothing of the grader's.
ALTER TABLE calls_by_time MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE calls_noted MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE caller_stats MODIFY SETTING non_replicated_deduplication_window = 10000;
