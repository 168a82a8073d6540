import { freshChainFold, refoldKeys } from './fifo-fold-fresh.ts'
import type { ViewCheck } from '../../core/records/verify-report.ts'

/** fifo_hold_counts per wallet-token: closed lots counted per hold (what the receipt's hold style reads). */
export const fifoHoldCountsCheck: ViewCheck = {
  view: 'fifo_hold_counts',
  against: 'the closed-lot holds of a FIFO fold of every wallet_legs row of the wallet-token',
  perChain: true,
  kept: (sample) => `
    SELECT key, toString(arraySort(groupArray((hold_seconds, n)))) AS v
    FROM (SELECT concat(wallet, '/', token) AS key, hold_seconds, toUInt64(sum(lots)) AS n FROM fifo_hold_counts
          WHERE chain_id = {chain:UInt32} AND ${sample("concat(wallet, '/', token)")} GROUP BY wallet, token, hold_seconds HAVING n > 0)
    GROUP BY key`,
  fresh: (sample) => `
    SELECT key, toString(arraySort(groupArray((h, n)))) AS v
    FROM (SELECT key, h, toUInt64(count()) AS n FROM (${freshChainFold(sample)}) ARRAY JOIN arrayFlatten(arrayMap(s -> s.5, f.2)) AS h GROUP BY key, h)
    GROUP BY key`,
  repair: (ch, chain, keys) => refoldKeys(ch, chain!, keys),
}
