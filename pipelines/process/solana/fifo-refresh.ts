import type { ClickHouseClient } from '../../../core/clickhouse.ts'
import { FIFO_LEG_TYPE, FIFO_STATE_TYPE, fifoFold, fifoInitialState } from '../../../core/domain/fifo-sql.ts'

/** Pairs per refresh statement (an IN list). */
const PAIRS_PER_STATEMENT = 5_000

/**
 * Fold the trades of the given (wallet, mint) pairs that solana_fifo_state has not folded yet
 * onto their stored states, with the one FIFO core (core/domain/fifo-sql.ts), in ClickHouse.
 * A leg is (side, token_qty, usd_micro, block_time), ordered by (block time, slot, signature,
 * side). Work is per touched pair: its trades are one keyed range of solana_trades and its state
 * one row. Idempotent: legs at or before the state's last key are not folded again, so running
 * it twice (a retried batch) changes nothing; when a leg arrived older than the state's last one
 * (its count of legs up to that key disagrees with the state's), the pair is refolded whole.
 */
export async function refreshSolanaFifo(ch: ClickHouseClient, pairs: Array<[wallet: string, mint: string]>, token?: string): Promise<void> {
  for (let i = 0; i < pairs.length; i += PAIRS_PER_STATEMENT) {
    const chunk = pairs.slice(i, i + PAIRS_PER_STATEMENT)
    await ch.command({
      query: REFRESH_SQL,
      query_params: { wallets: chunk.map((p) => p[0]), mints: chunk.map((p) => p[1]) },
      clickhouse_settings: token ? { insert_deduplication_token: `${token}:solana_fifo_state:${i}` } : {},
    })
  }
}

/** The pairs of the statement (parameters wallets and mints, zipped); the wallet list narrows the key range. */
const PAIRS = `wallet IN {wallets:Array(String)} AND (wallet, mint) IN (SELECT p.1, p.2 FROM (SELECT arrayJoin(arrayZip({wallets:Array(String)}, {mints:Array(String)})) AS p))`

const keyed = `arraySort(x -> x.1, groupArray(((block_time, slot, signature, side_n), CAST((side_n, toInt256(token_qty), toInt256(usd_micro), toUInt32(block_time)), '${FIFO_LEG_TYPE}'))))`

/** Incremental when the state exists and has folded exactly the legs up to its last key. */
const incremental = 's_found = 1 AND arrayCount(x -> x.1 <= s_through, all_legs) = s_legs'
const fresh = `if(${incremental}, arrayFilter(x -> x.1 > s_through, all_legs), all_legs)`
const fold = fifoFold(`arrayMap(x -> x.2, new_legs)`, `if(inc, s_state, ${fifoInitialState()})`)

const REFRESH_SQL = `
INSERT INTO solana_fifo_state (wallet, mint, legs, through, state, unmatched_sells, closed_holds)
SELECT wallet, mint, length(all_legs), all_legs[-1].1, f.1,
       if(inc, s_unmatched, 0) + arrayCount(x -> x.3 > 0, f.2),
       arrayConcat(if(inc, s_holds, []), arrayFlatten(arrayMap(x -> x.5, f.2)))
FROM (
  SELECT wallet, mint, all_legs, s_state, s_unmatched, s_holds, inc, new_legs, ${fold} AS f
  FROM (
    SELECT l.wallet AS wallet, l.mint AS mint, l.all_legs AS all_legs, s.found AS s_found, s.folded AS s_legs, s.last_key AS s_through,
           CAST(s.last_state, '${FIFO_STATE_TYPE}') AS s_state, s.unmatched AS s_unmatched, s.holds AS s_holds,
           ${incremental} AS inc, ${fresh} AS new_legs
    FROM (
      SELECT wallet, mint, ${keyed} AS all_legs
      FROM (SELECT wallet, mint, block_time, slot, signature, if(side = 'buy', 1, -1) AS side_n, token_qty, usd_micro
            FROM solana_trades FINAL WHERE ${PAIRS})
      GROUP BY wallet, mint
    ) AS l
    LEFT JOIN (
      SELECT wallet, mint, 1 AS found, max(legs) AS folded, argMax(through, legs) AS last_key, argMax(state, legs) AS last_state,
             argMax(unmatched_sells, legs) AS unmatched, argMax(closed_holds, legs) AS holds
      FROM solana_fifo_state WHERE ${PAIRS}
      GROUP BY wallet, mint
    ) AS s ON l.wallet = s.wallet AND l.mint = s.mint
  )
  WHERE length(new_legs) > 0
)`
