import { FIFO_LEG_TYPE, fifoFold, fifoInitialState } from '../../products/wallet/fifo-sql.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { LEG_POS, refoldPairs } from '../../products/wallet/fifo-refresh.ts'
import { noteRepaired } from './note-repaired.ts'
import type { Sampler } from '../../core/records/verify-report.ts'

/**
 * Chain FIFO recomputed from raw legs, for the FIFO checks: every sampled (wallet, token) of the
 * chain folded from nothing over all its wallet_legs rows (once each, in chain order) with the one
 * FIFO core. Answers key ('wallet/token'), n (legs), f (FIFO_FOLD_TYPE: state and sells).
 */
export function freshChainFold(sample: Sampler): string {
  return `
    SELECT concat(wallet, '/', token) AS key, toUInt64(length(legs)) AS n, ${fifoFold('legs', fifoInitialState())} AS f
    FROM (
      SELECT wallet, token, arrayMap(x -> x.2, arraySort(x -> x.1, groupArray((pos, CAST((side, qty, cost, toUInt32(block_time)), '${FIFO_LEG_TYPE}'))))) AS legs
      FROM (
        SELECT wallet, token, ${LEG_POS} AS pos, side, qty, cost, block_time FROM wallet_legs
        WHERE chain_id = {chain:UInt32} AND ${sample("concat(wallet, '/', token)")}
        ORDER BY wallet, token, block_number, log_index LIMIT 1 BY wallet, token, block_number, log_index
      )
      GROUP BY wallet, token
    )`
}

/** (wallet, token) pairs from 'wallet/token' keys. */
export function pairsOf(keys: string[]): Array<[string, string]> {
  return keys.map((k) => {
    const i = k.indexOf('/')
    return [k.slice(0, i), k.slice(i + 1)]
  })
}

/** Repair of the FIFO views: the pairs folded again from their first leg, their wallets named as changed. */
export async function refoldKeys(ch: ClickHouseClient, chainId: number, keys: string[]): Promise<void> {
  const pairs = pairsOf(keys)
  await refoldPairs(ch, chainId, pairs)
  await noteRepaired(ch, chainId, 'wallet', [...new Set(pairs.map(([w]) => w))])
}
