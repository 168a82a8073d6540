import type { ViewCheck } from '../../core/records/verify-report.ts'
import { keepsTokenProducts } from '../../core/chains.ts'

const ZERO = "'0x0000000000000000000000000000000000000000'"

/** Balances from the transfers of the sampled tokens (every wallet of a token: a token is sampled whole). */
const freshBalances = (sample: (e: string) => string) => `
  SELECT token, w AS wallet, sum(d) AS b FROM (
    SELECT token, to_address AS w, toInt256(value) AS d FROM erc20_transfers FINAL WHERE chain_id = {chain:UInt32} AND ${sample('token')}
    UNION ALL
    SELECT token, from_address AS w, -toInt256(value) AS d FROM erc20_transfers FINAL WHERE chain_id = {chain:UInt32} AND ${sample('token')})
  WHERE w != ${ZERO} GROUP BY token, w HAVING b != 0`

/** holder_balances per (token, wallet): the current balance (zero balances are no holders). */
export const holderBalancesCheck: ViewCheck = {
  view: 'holder_balances',
  against: 'the sum of the erc20_transfers in and out of the wallet',
  perChain: true,
  keptFor: keepsTokenProducts,
  kept: (sample) => `
    SELECT concat(token, '/', wallet) AS key, toString(b) AS v
    FROM (SELECT token, wallet, sum(balance) AS b FROM holder_balances WHERE chain_id = {chain:UInt32} AND ${sample('token')} GROUP BY token, wallet HAVING b != 0)`,
  fresh: (sample) => `SELECT concat(token, '/', wallet) AS key, toString(b) AS v FROM (${freshBalances(sample)})`,
  // The drifted tokens' balances are replaced whole by the ones their transfers give.
  async repair(ch, chain, keys) {
    const tokens = [...new Set(keys.map((k) => k.slice(0, k.indexOf('/'))))]
    const p = { chain: chain!, tokens }
    await ch.command({ query: 'DELETE FROM holder_balances WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)}', query_params: p })
    await ch.command({
      query: `INSERT INTO holder_balances (chain_id, token, wallet, balance) SELECT {chain:UInt32}, token, wallet, b FROM (${freshBalances(() => 'token IN {tokens:Array(String)}')})`,
      query_params: p,
      clickhouse_settings: { insert_deduplicate: 0 },
    })
  },
}
