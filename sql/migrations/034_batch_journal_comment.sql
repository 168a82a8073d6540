-- A batch of one block (a live block's) is no longer journaled: the chain processor forms its
-- first batch after a start of one block, which re-forms such a batch exactly after a crash
-- (pipelines/process/chain-processor.ts). The journal's comment says so.

ALTER TABLE pipeline_batches MODIFY COMMENT 'The batch journal: a batch of several blocks is recorded before it is inserted so a retry re-forms it exactly (a batch of one block is re-formed as the first batch after a start; the newest per consumer matters). Key: consumer.';
