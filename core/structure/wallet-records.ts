import type { ClickHouseClient } from '../clickhouse.ts'
import { queryRows } from '../clickhouse.ts'
import { isSmartFifo } from '../domain/smart-record.ts'

/**
 * Per-wallet records the holder labels `identity` and `smart` are judged on. Both are seams:
 *
 * - identity: a social handle linked to a wallet. The social data (migrations 005, 012, 015:
 *   posts, mentions, calls, follows, caller records) links handles to tokens, never to wallets,
 *   so no wallet has an identity yet. When a wallet↔handle source lands, read it here by key.
 * - smart: a holder whose measured record is good. Two sources are defined (issue 11): the
 *   linked wallet of a caller graded A or B (none exist: see identity), and a positive FIFO
 *   realized result with a win rate of at least 0.5 over at least 5 sells (the receipts work,
 *   not merged here). `smartHolderRecords` is where both are read; it answers none until then.
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

/**
 * The smart records of `wallets`: the FIFO rule (core/domain/smart-record.ts) over each wallet's
 * FIFO states (fifo_state, migration 021, by key: the newest state per wallet-token, summed over
 * its tokens). The caller-grade source answers none until wallets are linked to handles.
 */
export async function smartHolderRecords(ch: ClickHouseClient, chainId: number, wallets: string[]): Promise<Map<string, SmartRecord>> {
  if (wallets.length === 0) return new Map()
  const rows = await queryRows<{ wallet: string; realized: string; sells: string; wins: string; tokens: string }>(
    ch,
    `SELECT wallet, toString(sum(st.realized)) AS realized, sum(st.sells) AS sells, sum(st.winning_sells) AS wins, count() AS tokens
     FROM (SELECT wallet, token, argMax(state, version) AS st FROM fifo_state WHERE chain_id = {chain:UInt32} AND wallet IN {wallets:Array(String)} GROUP BY wallet, token)
     GROUP BY wallet`,
    { chain: chainId, wallets },
  )
  const out = new Map<string, SmartRecord>()
  for (const r of rows) {
    const record = { realized: BigInt(r.realized), sells: Number(r.sells), winningSells: Number(r.wins) }
    if (!isSmartFifo(record)) continue
    out.set(r.wallet, {
      basis: 'fifo_realized',
      record: { realized_weth_wei: r.realized, sells: record.sells, winning_sells: record.winningSells, win_rate: record.winningSells / record.sells, tokens_traded: Number(r.tokens) },
    })
  }
  return out
}
