import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { chainHead } from '../../core/records/data-clock.ts'
import { ScanRefused } from './scan-job.ts'
import { insidersOf, shareOf, ZERO_ADDRESS as ZERO } from './holder-labels.ts'
import { balancesAt, tokenFacts, tokenPools, transfersBefore } from './holder-balances.ts'
import type { ForensicsView } from './forensics-view.ts'

/**
 * A token's forensics (issue 11): its pre-launch flows, computed by a scans worker from keyed
 * reads only (contract_creations, launches, token_activity, token_supply by token;
 * transfers_by_token by (token, block); pool_providers by pool), exact to the wei.
 *
 * - `prelaunch`: the token's transfers before its first swap (every transfer when it has not
 *   traded yet): mints apart, then what was sent and to whom, per recipient.
 * - `deployer_funding`: see FUNDING_RULE (transfers_by_wallet, by the deployer's key).
 * - `insiders_now`: the wallets the holder structure labels insider (products/structure/holder-labels.ts)
 *   and their balance at the measured block (holder_balances, by key).
 * - `liquidity`: per pool of the token (token_pools) and provider, the liquidity added and
 *   removed (pool_providers, migration 017: in the pool's protocol units, for v2 the WETH wei of
 *   Mint/Burn), flagged when the provider is the deployer.
 */

/** Pre-launch transfers listed one by one at most; the per-recipient sums cover them all. */
export const PRELAUNCH_TRANSFERS_LIMIT = 1000
export const PRELAUNCH_RECIPIENTS_LIMIT = 500

export type ForensicsResult = ForensicsView

/** What counts as the deployer's funding (documented in the answer). */
export const FUNDING_RULE =
  "ERC20 transfers (WETH or any token) the deployer received in blocks before the one that created the token, first ones first (at most 50): the chain data we ingest holds logs, not native ETH transfers"
export const FUNDERS_LIMIT = 50

/** The launch pool and the supply now (minted minus burned), each read by its key. */
async function launchAndSupply(ch: ClickHouseClient, chainId: number, token: string): Promise<{ launchPool: string | null; launchBlock: number | null; supply: bigint }> {
  const p = { chain: chainId, token }
  const [[la], [su]] = await Promise.all([
    queryRows<{ pool: string; block_number: string }>(ch, 'SELECT pool, block_number FROM launches WHERE chain_id = {chain:UInt32} AND token = {token:String} ORDER BY block_number LIMIT 1', p),
    queryRows<{ minted: string; burned: string }>(ch, 'SELECT toString(sum(minted)) AS minted, toString(sum(burned)) AS burned FROM token_supply WHERE chain_id = {chain:UInt32} AND token = {token:String}', p),
  ])
  return { launchPool: la?.pool ?? null, launchBlock: la ? Number(la.block_number) : null, supply: BigInt(su?.minted ?? '0') - BigInt(su?.burned ?? '0') }
}

/** The deployer's first receipts before the token's creation block (transfers_by_wallet, by key). */
async function deployerFunders(ch: ClickHouseClient, chainId: number, deployer: string | null, createdBlock: number | null): Promise<ForensicsView['deployer_funding']['funders']> {
  if (!deployer || createdBlock === null) return []
  const rows = await queryRows<{ counterparty: string; token: string; v: string; block_number: string; tx_hash: string }>(
    ch,
    `SELECT counterparty, token, toString(value) AS v, block_number, tx_hash FROM transfers_by_wallet
     WHERE chain_id = {chain:UInt32} AND wallet = {w:String} AND direction = 'in' AND block_number < {before:UInt64}
     ORDER BY block_number, log_index LIMIT {n:UInt32}`,
    { chain: chainId, w: deployer, before: createdBlock, n: FUNDERS_LIMIT },
  )
  return rows.map((r) => ({ address: r.counterparty, token: r.token, value_wei: r.v, block: Number(r.block_number), tx_hash: r.tx_hash }))
}

export async function computeForensics(ch: ClickHouseClient, chainId: number, token: string): Promise<{ result: ForensicsResult; measuredThroughBlock: number }> {
  const head = await chainHead(ch, chainId)
  if (!head) throw new ScanRefused(`no block of chain ${chainId} has been ingested yet`)
  const through = head.number
  const [created, launch, poolRows] = await Promise.all([tokenFacts(ch, chainId, token), launchAndSupply(ch, chainId, token), tokenPools(ch, chainId, token, through)])
  const facts = { ...created, ...launch }
  if (!facts.deployer && facts.supply === 0n && poolRows.length === 0) {
    throw new ScanRefused(`no contract creation, launch or transfer of ${token} has been ingested on chain ${chainId}`)
  }
  const before = Math.min(facts.firstSwapBlock ?? through + 1, through + 1)
  const pools = poolRows.map((p) => p.pool)
  const deployer = facts.deployer ?? ''
  const range = { chain: chainId, token, before, pools, deployer, zero: ZERO }
  const inRange = 'chain_id = {chain:UInt32} AND token = {token:String} AND block_number < {before:UInt64}'

  const [transfers, [counts], minted, recipients, liquidity, funders, preSwap] = await Promise.all([
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
    deployerFunders(ch, chainId, facts.deployer, facts.createdBlock),
    transfersBefore(ch, chainId, token, before),
  ])
  const poolSet = new Set(pools)
  // Insiders as the holder structure labels them, and what they hold at the measured block.
  const insiders = [...insidersOf(facts.deployer, poolSet, preSwap).keys()]
  const insiderBalance = [...(await balancesAt(ch, chainId, token, through, insiders)).values()].reduce((a, b) => a + b, 0n)
  const result: ForensicsResult = {
    token,
    deployer: facts.deployer,
    created_block: facts.createdBlock,
    launch_pool: facts.launchPool,
    launch_block: facts.launchBlock,
    first_swap_block: facts.firstSwapBlock,
    supply_wei: facts.supply.toString(),
    deployer_funding: { rule: FUNDING_RULE, funders },
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
    insiders_now: { wallets: insiders.length, balance_wei: insiderBalance.toString(), share_of_supply: shareOf(insiderBalance, facts.supply) },
  }
  return { result, measuredThroughBlock: through }
}
