-- Of a run of one-block batches (live blocks) only the first is journaled: after a start while
-- a run was on, the chain processor forms its first batch of one block, which re-forms one cut
-- short exactly (pipelines/process/chain-processor.ts). The journal's comment says so.

ALTER TABLE pipeline_batches MODIFY COMMENT 'The batch journal: a batch is recorded before it is inserted so a retry re-forms it exactly, except the later batches of a run of one-block batches (after a start while a run was on, the first batch is one block); the newest per consumer matters. Key: consumer.';
