import { recountChainTotals } from '../../products/token/chain-totals.ts'
import type { ViewCheck } from '../../core/records/verify-report.ts'

/** chain_totals: blocks, last block time, creations, pools, transfers, swaps, WETH volume, traders, traded tokens. */
export const chainTotalsCheck: ViewCheck = {
  view: 'chain_totals',
  against: 'counts over chain_blocks, contract_creations, pools, erc20_transfers and swaps (distinct traders and tokens)',
  perChain: true,
  kept: () => `
    SELECT toString(chain_id) AS key,
           toString(tuple(toUInt64(sum(blocks)), max(last_block_time), toUInt64(sum(creations)), toUInt64(sum(pools)), toUInt64(sum(transfers)),
                          toUInt64(sum(swaps)), toUInt256(sum(weth_volume)), toUInt64(sum(traders)), toUInt64(sum(tokens_traded)))) AS v
    FROM chain_totals WHERE chain_id = {chain:UInt32} GROUP BY chain_id`,
  fresh: () => `
    SELECT toString({chain:UInt32}) AS key,
           toString(tuple(
             (SELECT toUInt64(count()) FROM chain_blocks WHERE chain_id = {chain:UInt32}),
             (SELECT max(timestamp) FROM chain_blocks WHERE chain_id = {chain:UInt32}),
             (SELECT toUInt64(count()) FROM contract_creations WHERE chain_id = {chain:UInt32}),
             (SELECT toUInt64(count()) FROM pools WHERE chain_id = {chain:UInt32}),
             (SELECT toUInt64(count()) FROM erc20_transfers WHERE chain_id = {chain:UInt32}),
             (SELECT toUInt64(count()) FROM swaps WHERE chain_id = {chain:UInt32}),
             (SELECT toUInt256(sum(weth_in + weth_out)) FROM swaps WHERE chain_id = {chain:UInt32}),
             (SELECT toUInt64(uniqExact(trader)) FROM swaps WHERE chain_id = {chain:UInt32}),
             (SELECT toUInt64(uniqExact(token)) FROM swaps WHERE chain_id = {chain:UInt32}))) AS v`,
  repair: (ch, chain) => recountChainTotals(ch, chain!),
}
