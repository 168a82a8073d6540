import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { chainHead } from '../../core/records/data-clock.ts'
import { ScanRefused } from '../../core/domain/scan-job.ts'
import type { ForensicsView } from '../../api/views/forensics.ts'

/**
 * A token's forensics (issue 11): its pre-launch flows, computed by a scans worker from keyed
 * reads only (contract_creations, launches, token_activity, token_supply by token;
 * transfers_by_token by (token, block); pool_providers by pool), exact to the wei.
 *
 * - `prelaunch`: the token's transfers before its first swap (every transfer when it has not
 *   traded yet): mints apart, then what was sent and to whom, per recipient.
 * - `liquidity`: per pool of the token (its launch pool) and provider, the liquidity added and
 *   removed (pool_providers, migration 017: in the pool's protocol units, for v2 the WETH wei of
 *   Mint/Burn), flagged when the provider is the deployer.
 */

/** A share of supply in [0, 1], to 6 decimals (the amounts themselves stay exact). */
const shareOf = (value: bigint, supply: bigint) => (supply > 0n ? Number((value * 1_000_000n) / supply) / 1_000_000 : 0)

export const ZERO = '0x0000000000000000000000000000000000000000'
/** Pre-launch transfers listed one by one at most; the per-recipient sums cover them all. */
export const PRELAUNCH_TRANSFERS_LIMIT = 1000
export const PRELAUNCH_RECIPIENTS_LIMIT = 500

export type ForensicsResult = ForensicsView

export interface TokenFacts {
  token: string
  deployer: string | null
  createdBlock: number | null
  launchPool: string | null
  launchBlock: number | null
  firstSwapBlock: number | null
  supply: bigint
}

/** Launch facts of one token, each read by its key; null when nothing of it was ingested. */
export async function tokenFacts(ch: ClickHouseClient, chainId: number, token: string): Promise<TokenFacts | null> {
  const p = { chain: chainId, token }
  const [[cr], [la], [act], [su]] = await Promise.all([
    queryRows<{ deployer: string; block_number: string }>(ch, 'SELECT deployer, block_number FROM contract_creations WHERE chain_id = {chain:UInt32} AND address = {token:String} LIMIT 1', p),
    queryRows<{ pool: string; block_number: string }>(ch, 'SELECT pool, block_number FROM launches WHERE chain_id = {chain:UInt32} AND token = {token:String} ORDER BY block_number LIMIT 1', p),
    queryRows<{ first: string; n: string }>(ch, 'SELECT min(first_swap_block) AS first, sum(swaps) AS n FROM token_activity WHERE chain_id = {chain:UInt32} AND token = {token:String}', p),
    queryRows<{ minted: string; burned: string; n: string }>(
      ch, 'SELECT toString(sum(minted)) AS minted, toString(sum(burned)) AS burned, count() AS n FROM token_supply WHERE chain_id = {chain:UInt32} AND token = {token:String}', p,
    ),
  ])
  if (!cr && !la && Number(su?.n ?? 0) === 0) return null
  return {
    token,
    deployer: cr?.deployer ?? null,
    createdBlock: cr ? Number(cr.block_number) : null,
    launchPool: la?.pool ?? null,
    launchBlock: la ? Number(la.block_number) : null,
    firstSwapBlock: act && Number(act.n) > 0 ? Number(act.first) : null,
    supply: BigInt(su?.minted ?? '0') - BigInt(su?.burned ?? '0'),
  }
}

export async function computeForensics(ch: ClickHouseClient, chainId: number, token: string): Promise<{ result: ForensicsResult; measuredThroughBlock: number }> {
  const head = await chainHead(ch, chainId)
  const facts = await tokenFacts(ch, chainId, token)
  if (!head || !facts) throw new ScanRefused(`no contract creation, launch or transfer of ${token} has been ingested on chain ${chainId}`)
  const through = head.number
  const before = Math.min(facts.firstSwapBlock ?? through + 1, through + 1)
  const pools = facts.launchPool ? [facts.launchPool] : []
  const deployer = facts.deployer ?? ''
  const range = { chain: chainId, token, before, pools, deployer, zero: ZERO }
  const inRange = 'chain_id = {chain:UInt32} AND token = {token:String} AND block_number < {before:UInt64}'

  const [transfers, [counts], minted, recipients, liquidity] = await Promise.all([
    queryRows<{ block_number: string; tx_hash: string; from_address: string; to_address: string; v: string }>(
      ch,
      `SELECT block_number, tx_hash, from_address, to_address, toString(value) AS v FROM transfers_by_token
       WHERE ${inRange} AND from_address != {zero:String} ORDER BY block_number, log_index LIMIT {n:UInt32}`,
      { ...range, n: PRELAUNCH_TRANSFERS_LIMIT },
    ),
    queryRows<{ transfers: string; recipients: string; off_market: string }>(
      ch,
      `SELECT countIf(from_address != {zero:String}) AS transfers,
              uniqExactIf(to_address, from_address != {zero:String}) AS recipients,
              toString(sumIf(value, from_address = {deployer:String} AND to_address NOT IN {pools:Array(String)} AND to_address NOT IN ({deployer:String}, {zero:String}))) AS off_market
       FROM transfers_by_token WHERE ${inRange}`,
      range,
    ),
    queryRows<{ to_address: string; v: string }>(
      ch,
      `SELECT to_address, toString(sum(value)) AS v FROM transfers_by_token WHERE ${inRange} AND from_address = {zero:String}
       GROUP BY to_address ORDER BY sum(value) DESC, to_address LIMIT {n:UInt32}`,
      { ...range, n: PRELAUNCH_RECIPIENTS_LIMIT },
    ),
    queryRows<{ to_address: string; v: string; from_deployer: string }>(
      ch,
      `SELECT to_address, toString(sum(value)) AS v, toString(sumIf(value, from_address = {deployer:String})) AS from_deployer FROM transfers_by_token
       WHERE ${inRange} AND from_address != {zero:String} GROUP BY to_address ORDER BY sum(value) DESC, to_address LIMIT {n:UInt32}`,
      { ...range, n: PRELAUNCH_RECIPIENTS_LIMIT },
    ),
    pools.length
      ? queryRows<{ pool: string; provider: string; added_wei: string; removed_wei: string }>(
          ch,
          `SELECT pool, provider, toString(sum(added)) AS added_wei, toString(sum(removed)) AS removed_wei FROM pool_providers
           WHERE chain_id = {chain:UInt32} AND pool IN {pools:Array(String)} GROUP BY pool, provider ORDER BY pool, sum(added) DESC, provider`,
          range,
        )
      : Promise.resolve([]),
  ])
  const poolSet = new Set(pools)
  const result: ForensicsResult = {
    token,
    deployer: facts.deployer,
    created_block: facts.createdBlock,
    launch_pool: facts.launchPool,
    launch_block: facts.launchBlock,
    first_swap_block: facts.firstSwapBlock,
    supply_wei: facts.supply.toString(),
    deployer_funding: { rule: 'pending', funders: [] },
    prelaunch: {
      before_block: before,
      minted: minted.map((m) => ({ to: m.to_address, value_wei: m.v })),
      transfers_total: Number(counts!.transfers),
      transfers: transfers.map((t) => ({ block: Number(t.block_number), tx_hash: t.tx_hash, from: t.from_address, to: t.to_address, value_wei: t.v })),
      transfers_truncated: Number(counts!.transfers) > transfers.length,
      recipients: recipients.map((r) => ({
        address: r.to_address, received_wei: r.v, share_of_supply: shareOf(BigInt(r.v), facts.supply), from_deployer_wei: r.from_deployer, is_pool: poolSet.has(r.to_address),
      })),
      recipients_total: Number(counts!.recipients),
      off_market_from_deployer_wei: counts!.off_market,
    },
    liquidity: liquidity.map((l) => ({ pool: l.pool, provider: l.provider, added: l.added_wei, removed: l.removed_wei, is_deployer: l.provider === facts.deployer })),
    insiders_now: { wallets: 0, balance_wei: '0', share_of_supply: 0 },
  }
  return { result, measuredThroughBlock: through }
}
