import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { RollbackResult } from './chain-rollback.ts'

/** The serving refresh a rollback owes, and the orphaned block that tells whether it completed. */
export interface OwedRefresh extends RollbackResult {
  /** Each run's first orphaned block and its hash: while `chain_blocks` holds one, its rollback is not done. */
  orphans: Array<{ block: number; hash: string }>
}

/**
 * What a reorg's rollback owes the serving state, kept in `reorg_refresh_owed` from before the
 * rollback deletes anything until its refresh is done. A rollback run again after a fault finds
 * the rows it deleted gone, and a process that dies between the deletes and the refresh starts
 * again without its memory: both read what each run touched here.
 */
export interface OwedRollbacks {
  /** Record what one run of the rollback touched (before its first delete). */
  owe(touched: RollbackResult, orphan: { block: number; hash: string }): Promise<void>
  /** Everything owed on this chain, every run's added up; undefined when nothing is. */
  owed(): Promise<OwedRefresh | undefined>
  /** The refresh is done: nothing is owed on this chain. */
  settle(): Promise<void>
}

export function createOwedRollbacks(ch: ClickHouseClient, chainId: number): OwedRollbacks {
  return {
    async owe(touched, orphan) {
      await ch.insert({
        table: 'reorg_refresh_owed',
        values: [{ chain_id: chainId, from_block: orphan.block, old_hash: orphan.hash, tokens: touched.tokens, touched: touched.touched, wallets: touched.wallets, owed_at: Date.now() }],
        format: 'JSONEachRow',
        // Two runs of one rollback may owe the same rows: both are kept (a union is read).
        clickhouse_settings: { insert_deduplicate: 0 },
      })
    },
    async owed() {
      const rows = await queryRows<{ from_block: string; old_hash: string; tokens: string[]; touched: string[]; wallets: string[] }>(
        ch,
        'SELECT from_block, old_hash, tokens, touched, wallets FROM reorg_refresh_owed WHERE chain_id = {chain:UInt32}',
        { chain: chainId },
      )
      if (rows.length === 0) return undefined
      return rows
        .map((r): OwedRefresh => ({ fromBlock: Number(r.from_block), tokens: r.tokens, touched: r.touched, wallets: r.wallets, orphans: [{ block: Number(r.from_block), hash: r.old_hash }] }))
        .reduce(unionOfOwed)
    },
    async settle() {
      await ch.command({ query: 'DELETE FROM reorg_refresh_owed WHERE chain_id = {chain:UInt32}', query_params: { chain: chainId } })
    },
  }
}

/** Two owed refreshes as one: every key of either, every orphan of either. */
export function unionOfOwed(a: OwedRefresh, b: OwedRefresh): OwedRefresh {
  const union = (x: string[], y: string[]) => [...new Set([...x, ...y])]
  return {
    fromBlock: Math.min(a.fromBlock, b.fromBlock),
    tokens: union(a.tokens, b.tokens),
    touched: union(a.touched, b.touched),
    wallets: union(a.wallets, b.wallets),
    orphans: [...a.orphans, ...b.orphans],
  }
}

/** Whether every rollback owing `owed` deleted its orphaned blocks (the last thing a rollback deletes). */
export function rollbacksComplete(owed: OwedRefresh, hashOf: (block: number) => string | undefined): boolean {
  return owed.orphans.every((o) => hashOf(o.block) !== o.hash)
}
