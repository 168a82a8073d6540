-- What a key of serving_changes says: a batch's marker now names the launches it served, so an API
-- process reads its feed window's new launches only after a batch that had some.
ALTER TABLE serving_changes
    COMMENT COLUMN kind 'what changed: \'token\', \'deployer\', \'wallet\', \'scan\' (a stored structure scan) or \'batch\' (a refreshed batch)',
    COMMENT COLUMN key 'the changed token, deployer or wallet; for a batch, \'launches=N\' (the launches it served; \'\' for a rollback or a rebuild, and in rows written before migration 031)';
