import { queryRows } from '../../core/clickhouse.ts'
import { refreshTokens } from './token-state-check.ts'
import { keepsTokenProducts } from '../../core/chains.ts'
import type { ViewCheck } from '../../core/records/verify-report.ts'

/** deployer_state (newest row per deployer with launches): tokens launched. */
export const deployerStateCheck: ViewCheck = {
  view: 'deployer_state',
  against: 'the launches rows whose token the deployer created (contract_creations)',
  perChain: true,
  keptFor: keepsTokenProducts,
  kept: (sample) => `
    SELECT deployer AS key, toString(launched) AS v
    FROM (SELECT deployer, launched FROM deployer_state WHERE chain_id = {chain:UInt32} AND ${sample('deployer')} ORDER BY deployer, version DESC LIMIT 1 BY deployer)
    WHERE launched > 0`,
  fresh: (sample) => `
    SELECT c.dep AS key, toString(toUInt32(count())) AS v
    FROM (SELECT DISTINCT token FROM launches WHERE chain_id = {chain:UInt32}) AS l
    INNER JOIN (SELECT address, any(deployer) AS dep FROM contract_creations WHERE chain_id = {chain:UInt32} AND deployer != '' AND ${sample('deployer')} GROUP BY address) AS c
    ON c.address = l.token
    GROUP BY c.dep`,
  // A deployer's record is computed from its tokens' states: refresh those tokens (and so it),
  // the ones it created and the ones a token_state row names it for (a token whose creation a
  // reorg took away: its refresh writes a tombstone that names the deployer, which stops
  // counting it).
  async repair(ch, chain, keys) {
    const rows = await queryRows<{ t: string }>(
      ch,
      `SELECT address AS t FROM contract_creations WHERE chain_id = {chain:UInt32} AND deployer IN {d:Array(String)}
       UNION DISTINCT
       SELECT token AS t FROM token_state WHERE chain_id = {chain:UInt32} AND deployer IN {d:Array(String)}`,
      { chain: chain!, d: keys },
    )
    await refreshTokens(ch, chain!, rows.map((r) => r.t))
  },
}
