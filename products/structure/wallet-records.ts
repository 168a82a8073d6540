import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { isSmartFifoRecord, SMART_MIN_SELLS } from './smart-holder.ts'

/**
 * Per-wallet records the holder labels `identity` and `smart` are judged on. Both are seams:
 *
 * - identity: a social handle linked to a wallet. The social data (migrations 005, 012, 015:
 *   posts, mentions, calls, follows, caller records) links handles to tokens, never to wallets,
 *   so no wallet has an identity yet. When a wallet↔handle source lands, read it here by key.
 * - smart: a holder whose measured record is good. Two sources are defined (issue 11): the
 *   linked wallet of a caller graded A or B (none exist: see identity), and the FIFO rule of
 *   products/structure/smart-holder.ts over the wallet's FIFO states (fifo_state, migration 021, kept
 *   per wallet and token by the chain processor; read by key). The record is the wallet's
 *   current one (through the last folded batch), whatever the window end.
 */

export interface SmartRecord {
  /** Which rule made the wallet smart. */
  basis: 'caller_grade' | 'fifo_realized'
  /** The record judged on, as the source states it. */
  record: Record<string, unknown>
}

/** Handles linked to `wallets` (none: the social data has no wallet links yet). */
export async function identityHandles(_ch: ClickHouseClient, _chainId: number, _wallets: string[]): Promise<Map<string, string>> {
  return new Map()
}

/** The smart records of `wallets`: those whose FIFO record over all their tokens passes the rule. */
export async function smartHolderRecords(ch: ClickHouseClient, chainId: number, wallets: string[]): Promise<Map<string, SmartRecord>> {
  const out = new Map<string, SmartRecord>()
  if (wallets.length === 0) return out
  const rows = await queryRows<{ wallet: string; realized: string; sells: string; wins: string; tokens: string }>(
    ch,
    `SELECT wallet, toString(sum(s.realized)) AS realized, sum(s.sells) AS sells, sum(s.winning_sells) AS wins, count() AS tokens
     FROM (SELECT wallet, token, argMax(state, version) AS s FROM fifo_state WHERE chain_id = {chain:UInt32} AND wallet IN {wallets:Array(String)} GROUP BY wallet, token)
     GROUP BY wallet HAVING sells >= {min:UInt64}`,
    { chain: chainId, wallets, min: SMART_MIN_SELLS },
  )
  for (const r of rows) {
    const record = { realizedWei: BigInt(r.realized), sells: Number(r.sells), winningSells: Number(r.wins) }
    if (!isSmartFifoRecord(record)) continue
    out.set(r.wallet, {
      basis: 'fifo_realized',
      record: { realized_weth_wei: r.realized, sells: record.sells, winning_sells: record.winningSells, win_rate: record.winningSells / record.sells, tokens_traded: Number(r.tokens) },
    })
  }
  return out
}
