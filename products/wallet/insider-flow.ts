import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { ZERO_ADDRESS } from '../structure/holder-labels.ts'

/**
 * A wallet's insider flow (GET /wallet/{address}), from keyed reads only: the wallet's rows of
 * transfers_by_wallet (020) and wallet_legs (021), and for the tokens and counterparties found
 * there their rows of token_activity, token_pools, deployer_state and snapshot_holdings.
 *
 * - Off-market supply acquired, per token: what the wallet received before the token's first
 *   swap (every receipt while it has not traded) from anyone but one of the token's pools
 *   (mints included): supply that did not come through the market.
 * - WETH realized from selling it: the WETH the wallet received from its sells of those tokens
 *   (wallet_legs sells; every sell of the token, whichever lot it came from), with the quantity sold.
 * - Flagged counterparties: of the distinct wallets the wallet exchanged any token with directly
 *   (pools of those tokens and the zero address left out), the share that is flagged: a deployer
 *   whose record carries the insider-prep flag, or a wallet the holder-snapshot archive labelled
 *   insider of some token.
 */

/** Tokens listed per wallet, the largest acquisitions first. */
export const INSIDER_FLOW_TOKENS_LIMIT = 100

export interface InsiderFlow {
  tokens: Array<{ token: string; acquired_wei: string; receipts: number; first_block: number; sold_wei: string; weth_realized_wei: string }>
  tokens_total: number
  weth_realized_wei: string
  counterparties: { total: number; flagged: number; flagged_percent: number }
}

export async function insiderFlow(ch: ClickHouseClient, chainId: number, wallet: string): Promise<InsiderFlow> {
  const p = { chain: chainId, w: wallet, zero: ZERO_ADDRESS, n: INSIDER_FLOW_TOKENS_LIMIT }
  const mine = 'chain_id = {chain:UInt32} AND wallet = {w:String}'
  const tokensOfWallet = `SELECT DISTINCT token FROM transfers_by_wallet WHERE ${mine}`
  const [acquired, [counts]] = await Promise.all([
    queryRows<{ token: string; acquired: string; receipts: string; first_block: string; sold: string; proceeds: string; total: string; all_proceeds: string }>(
      ch,
      `WITH
         fs AS (SELECT token, min(first_swap_block) AS first FROM token_activity WHERE chain_id = {chain:UInt32} AND token IN (${tokensOfWallet}) GROUP BY token),
         tp AS (SELECT token, groupUniqArray(pool) AS pools FROM token_pools WHERE chain_id = {chain:UInt32} AND token IN (${tokensOfWallet}) GROUP BY token),
         acq AS (
           SELECT r.token AS token, sum(r.value) AS acquired, count() AS receipts, min(r.block_number) AS first_block
           FROM (SELECT * FROM transfers_by_wallet FINAL WHERE ${mine} AND direction = 'in') AS r
           LEFT JOIN fs ON fs.token = r.token
           LEFT JOIN tp ON tp.token = r.token
           WHERE (fs.first = 0 OR r.block_number < fs.first) AND NOT has(tp.pools, r.counterparty)
           GROUP BY r.token),
         sold AS (
           SELECT token, sum(qty) AS sold, sum(cost) AS proceeds FROM wallet_legs FINAL
           WHERE ${mine} AND side = -1 AND token IN (SELECT token FROM acq) GROUP BY token)
       SELECT acq.token AS token, toString(acq.acquired) AS acquired, acq.receipts AS receipts, acq.first_block AS first_block,
              toString(ifNull(sold.sold, 0)) AS sold, toString(ifNull(sold.proceeds, 0)) AS proceeds, count() OVER () AS total,
              toString(sum(ifNull(sold.proceeds, 0)) OVER ()) AS all_proceeds
       FROM acq LEFT JOIN sold ON sold.token = acq.token
       ORDER BY acq.acquired DESC, acq.token LIMIT {n:UInt32}`,
      p,
    ),
    queryRows<{ total: string; flagged: string }>(
      ch,
      `WITH
         cp AS (
           SELECT DISTINCT counterparty AS w FROM transfers_by_wallet
           WHERE ${mine} AND counterparty NOT IN ({zero:String}, {w:String})
             AND counterparty NOT IN (SELECT pool FROM token_pools WHERE chain_id = {chain:UInt32} AND token IN (${tokensOfWallet}))),
         prep AS (SELECT deployer AS w FROM deployer_state WHERE chain_id = {chain:UInt32} AND deployer IN (SELECT w FROM cp)
                  GROUP BY deployer HAVING argMax(insider_prep_count, version) > 0),
         ins AS (SELECT DISTINCT wallet AS w FROM snapshot_holdings WHERE chain_id = {chain:UInt32} AND wallet IN (SELECT w FROM cp)
                 AND position(labels, '"kind":"insider"') > 0)
       SELECT (SELECT count() FROM cp) AS total,
              (SELECT count() FROM cp WHERE w IN (SELECT w FROM prep) OR w IN (SELECT w FROM ins)) AS flagged`,
      p,
    ),
  ])
  const total = Number(counts?.total ?? 0)
  const flagged = Number(counts?.flagged ?? 0)
  return {
    tokens: acquired.map((r) => ({
      token: r.token, acquired_wei: r.acquired, receipts: Number(r.receipts), first_block: Number(r.first_block), sold_wei: r.sold, weth_realized_wei: r.proceeds,
    })),
    tokens_total: Number(acquired[0]?.total ?? 0),
    weth_realized_wei: acquired[0]?.all_proceeds ?? '0',
    counterparties: { total, flagged, flagged_percent: total ? Math.round((flagged * 10_000) / total) / 100 : 0 },
  }
}
