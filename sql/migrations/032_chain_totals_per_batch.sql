-- A batch's counts go into chain_totals as one row inserted with its raw rows
-- (products/token/chain-totals.ts batchTotalsRow), no longer by a view on each raw table: five
-- views wrote up to five parts a batch (about 130 a minute on the default world), one row writes
-- one. Totals already kept stay; a reorg and `svc verify --repair` recount from the raw tables.
DROP VIEW IF EXISTS chain_totals_blocks_mv;
DROP VIEW IF EXISTS chain_totals_creations_mv;
DROP VIEW IF EXISTS chain_totals_pools_mv;
DROP VIEW IF EXISTS chain_totals_transfers_mv;
DROP VIEW IF EXISTS chain_totals_swaps_mv;

ALTER TABLE chain_totals MODIFY COMMENT 'Running totals per chain: a row per batch from the pipeline, new traders by the serving refresh (AggregatingMergeTree: sum/max on read). Key: chain_id.';
