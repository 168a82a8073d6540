-- The exact body each delivery signs and sends (the alert as the receiver sees it), kept on every
-- version of the delivery row, so that a worker started after a crash or restart can resume a
-- delivery left pending or retrying. Rows written before this migration read '' and are not resumed.
ALTER TABLE webhook_deliveries ADD COLUMN IF NOT EXISTS body String DEFAULT '' CODEC(ZSTD(1));
