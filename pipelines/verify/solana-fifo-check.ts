import { FIFO_LEG_TYPE, fifoFold, fifoInitialState } from '../../products/wallet/fifo-sql.ts'
import { foldSolana } from '../process/solana/fifo-refresh.ts'
import { tupleParam } from '../../core/clickhouse.ts'
import type { ViewCheck } from '../../core/records/verify-report.ts'

/** solana_fifo_state (latest by legs per wallet-mint): legs folded, FIFO state in micro-USD, sells with unmatched quantity. */
export const solanaFifoCheck: ViewCheck = {
  view: 'solana_fifo_state',
  against: 'a FIFO fold of every solana_trades row of the wallet-mint (block time, slot, signature, side order), from nothing',
  perChain: false,
  kept: (sample) => `
    SELECT concat(wallet, '/', mint) AS key, toString(tuple(legs, state, unmatched_sells)) AS v
    FROM solana_fifo_state WHERE ${sample("concat(wallet, '/', mint)")} ORDER BY wallet, mint, legs DESC LIMIT 1 BY wallet, mint`,
  fresh: (sample) => `
    SELECT key, toString(tuple(toUInt64(length(legs)), f.1, toUInt64(arrayCount(s -> s.3 > 0, f.2)))) AS v
    FROM (
      SELECT concat(wallet, '/', mint) AS key, legs, ${fifoFold('legs', fifoInitialState())} AS f
      FROM (
        SELECT wallet, mint,
               arrayMap(x -> x.2, arraySort(x -> x.1, groupArray(((block_time, slot, signature, side_n), CAST((side_n, toInt256(token_qty), toInt256(usd_micro), toUInt32(block_time)), '${FIFO_LEG_TYPE}'))))) AS legs
        FROM (SELECT DISTINCT wallet, mint, block_time, slot, signature, if(side = 'buy', 1, -1) AS side_n, token_qty, usd_micro
              FROM solana_trades WHERE ${sample("concat(wallet, '/', mint)")})
        GROUP BY wallet, mint))`,
  // Forget the pairs' states and hold counts, then fold each from its first trade.
  async repair(ch, _chain, keys) {
    const pairs = keys.map((k): [string, string] => [k.slice(0, k.indexOf('/')), k.slice(k.indexOf('/') + 1)])
    const p = { wallets: [...new Set(pairs.map((x) => x[0]))], pairs: tupleParam(pairs) }
    for (const table of ['solana_hold_counts', 'solana_fifo_state']) {
      await ch.command({ query: `DELETE FROM ${table} WHERE wallet IN {wallets:Array(String)} AND (wallet, mint) IN {pairs:Array(Tuple(String, String))}`, query_params: p })
    }
    await foldSolana(ch, { stated: [], statedLegs: new Map(), whole: pairs, late: 0 })
  },
}
