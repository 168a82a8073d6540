import { freshChainFold, refoldKeys } from './fifo-fold-fresh.ts'
import type { ViewCheck } from '../../core/records/verify-report.ts'

/** fifo_state (newest version per wallet-token): legs folded, FIFO state, sells with unmatched quantity. */
export const fifoStateCheck: ViewCheck = {
  view: 'fifo_state',
  against: 'a FIFO fold of every wallet_legs row of the wallet-token, from nothing',
  perChain: true,
  kept: (sample) => `
    SELECT concat(wallet, '/', token) AS key, toString(tuple(legs, state, unmatched_sells)) AS v
    FROM (SELECT wallet, token, legs, state, unmatched_sells FROM fifo_state
          WHERE chain_id = {chain:UInt32} AND ${sample("concat(wallet, '/', token)")}
          ORDER BY wallet, token, version DESC LIMIT 1 BY wallet, token)
    WHERE legs > 0`,
  fresh: (sample) => `SELECT key, toString(tuple(n, f.1, toUInt64(arrayCount(s -> s.3 > 0, f.2)))) AS v FROM (${freshChainFold(sample)})`,
  repair: (ch, chain, keys) => refoldKeys(ch, chain!, keys),
}
