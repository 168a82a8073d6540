-- A reorg's serving refresh, owed from before its rollback deletes anything. A process that dies
-- between the rollback's deletes and the refresh reads here on start what the orphaned blocks
-- touched and refreshes it; the rows are deleted once the refresh is done (rollbacks are rare:
-- the table is empty but for the moments a reorg is being settled).
CREATE TABLE IF NOT EXISTS reorg_refresh_owed
(
    chain_id   UInt32 COMMENT 'EVM chain id (4663: the followed chain)',
    from_block UInt64 COMMENT 'first orphaned block',
    old_hash   String COMMENT 'the orphaned block''s hash at from_block: while chain_blocks still holds it, the rollback is not complete',
    tokens     Array(String) COMMENT 'tokens whose swaps were orphaned (their real status is recomputed), 0x addresses, lowercase',
    touched    Array(String) COMMENT 'every token the orphaned blocks touched (its serving state is refreshed), 0x addresses, lowercase',
    wallets    Array(String) COMMENT 'traders of the orphaned swaps (their receipts are refreshed), 0x addresses, lowercase',
    owed_at    DateTime64(3, 'UTC') COMMENT 'when the rollback recorded it, UTC'
)
ENGINE = MergeTree
ORDER BY (chain_id, from_block)
COMMENT 'Serving refreshes a reorg''s rollback owes until done: what its orphaned blocks touched, recorded before it deletes anything. Key: chain_id, from_block.';
