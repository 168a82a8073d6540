import { freshChainFold, refoldKeys } from './fifo-fold-fresh.ts'
import type { ViewCheck } from '../../core/records/verify-report.ts'

/** fifo_sells per wallet-token: each matched sell (position, matched cost, unmatched quantity, realized, holds). */
export const fifoSellsCheck: ViewCheck = {
  view: 'fifo_sells',
  against: 'the sells of a FIFO fold of every wallet_legs row of the wallet-token',
  perChain: true,
  kept: (sample) => `
    SELECT concat(wallet, '/', token) AS key,
           toString(arraySort(x -> (x.1, x.2), groupArray((block_number, log_index, matched_cost, unmatched_qty, realized, closed_holds)))) AS v
    FROM fifo_sells FINAL WHERE chain_id = {chain:UInt32} AND ${sample("concat(wallet, '/', token)")}
    GROUP BY wallet, token`,
  fresh: (sample) => `
    SELECT key, toString(arrayMap(s -> (legs_at[s.1].1, legs_at[s.1].2, s.2, s.3, s.4, s.5), f.2)) AS v
    FROM (${freshChainFold(sample)}) AS x
    INNER JOIN (
      SELECT concat(wallet, '/', token) AS key, arraySort(groupArray((block_number, log_index))) AS legs_at
      FROM (SELECT wallet, token, block_number, log_index FROM wallet_legs WHERE chain_id = {chain:UInt32} AND ${sample("concat(wallet, '/', token)")}
            ORDER BY wallet, token, block_number, log_index LIMIT 1 BY wallet, token, block_number, log_index)
      GROUP BY wallet, token
    ) AS p USING (key)
    WHERE length(f.2) > 0`,
  repair: (ch, chain, keys) => refoldKeys(ch, chain!, keys),
}
