-- The pre-launch distribution of tokens whose launch the batch ingested ({launched}): how many
-- wallets other than the deployer and the zero address the deployer sent the token to before the
-- launch block (transfers_by_token by (chain_id, token, block)). Computed once, at launch: the fact
-- freezes then. A branch of token-state-sources.sql, appended only when a batch has launches (with the launched
-- tokens' frozen facts: a launch is one of them).
SELECT 'prelaunch', t.token,
       formatRowNoNewline('JSONEachRow', uniqExact(t.to_address) AS prelaunch_recipients)
FROM transfers_by_token AS t
INNER JOIN
(
    SELECT address AS token, any(deployer) AS deployer FROM contract_creations
    WHERE chain_id = {chain:UInt32} AND address IN {launched:Array(String)} GROUP BY address
) AS cr ON cr.token = t.token
INNER JOIN
(
    SELECT token, any(block_number) AS launch_block FROM launches
    WHERE chain_id = {chain:UInt32} AND token IN {launched:Array(String)} GROUP BY token
) AS la ON la.token = t.token
WHERE t.chain_id = {chain:UInt32} AND t.token IN {launched:Array(String)}
  AND t.from_address = cr.deployer
  AND t.to_address NOT IN (cr.deployer, '0x0000000000000000000000000000000000000000')
  AND t.block_number < la.launch_block
GROUP BY t.token
