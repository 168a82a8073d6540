import type { ClickHouseClient } from '../clickhouse.ts'

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

/** The smart records of `wallets` (none until a wallet-linked caller grade or FIFO receipts exist). */
export async function smartHolderRecords(_ch: ClickHouseClient, _chainId: number, _wallets: string[]): Promise<Map<string, SmartRecord>> {
  return new Map()
}
