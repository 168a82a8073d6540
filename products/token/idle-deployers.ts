import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { DEAD_AFTER_IDLE_SECONDS } from './real-token.ts'

/**
 * The deployers whose tokens turned idle (DEAD_AFTER_IDLE_SECONDS without activity) as the chain
 * moved from one batch to the next: their dead counts change although nothing touched them.
 *
 * A processor keeps an IdleWatch between its batches (in memory: a restart, a rollback or a
 * failed refresh starts without one, and the next batch reads): through which chain time turned
 * idle tokens were read, and the earliest chain time any token can turn idle after that. A batch
 * before that time asks the engine nothing. It stays a lower bound as batches go by: a version a
 * batch writes has the last activity its token had, or one in the batch (a swap, a launch, a
 * creation), at or after the previous batch's chain time, so it turns idle no sooner than
 * DEAD_AFTER_IDLE_SECONDS after that. A rollback can move a token's last activity back: it
 * drops the watch.
 */
export interface IdleWatch {
  /** The chain time through which tokens that turned idle were read. */
  checkedThrough: number
  /** No token turns idle before this chain time (Infinity: none is known to). */
  nextAt: number
}

/** The batch's deployers whose tokens turned idle, and the watch it leaves for the next batch. */
export interface IdleCheck {
  deployers: Set<string>
  watch: IdleWatch | undefined
}

/**
 * For a batch at `chainTime` whose previous batch was at `since` (null: time did not move, or
 * the previous is not known): the deployers whose tokens turned idle since, by one read through
 * projection by_activity (with the next time one can), or none when `watch` says none can have.
 * A batch's own tokens do not change which tokens turned idle before it, so this may run beside
 * their refresh.
 */
export async function deployersTurnedIdle(ch: ClickHouseClient, chainId: number, at: { since: number | null; chainTime: number; watch?: IdleWatch }): Promise<IdleCheck> {
  const { since, chainTime, watch } = at
  if (since === null) return { deployers: new Set(), watch: undefined }
  // What this batch writes turns idle no sooner than this.
  const ownIdle = since + DEAD_AFTER_IDLE_SECONDS
  if (watch && chainTime < watch.nextAt) return { deployers: new Set(), watch: { ...watch, nextAt: Math.min(watch.nextAt, ownIdle) } }
  const lo = Math.max(0, (watch?.checkedThrough ?? since) - DEAD_AFTER_IDLE_SECONDS)
  const hi = Math.max(0, chainTime - DEAD_AFTER_IDLE_SECONDS)
  const rows = await queryRows<{ kind: 'idle' | 'next'; deployer: string; at: number }>(
    ch,
    `SELECT 'idle' AS kind, deployer, toUInt32(0) AS at FROM token_state
     WHERE chain_id = {chain:UInt32} AND last_activity > {lo:UInt32} AND last_activity <= {hi:UInt32} AND deployer != '' GROUP BY deployer
     UNION ALL
     SELECT 'next', '', last_activity FROM (
       SELECT last_activity FROM token_state WHERE chain_id = {chain:UInt32} AND last_activity > {hi:UInt32} ORDER BY last_activity LIMIT 1)`,
    { chain: chainId, lo, hi },
  )
  const next = rows.find((r) => r.kind === 'next')
  const nextAt = next ? Number(next.at) + DEAD_AFTER_IDLE_SECONDS : Number.POSITIVE_INFINITY
  return {
    deployers: new Set(rows.filter((r) => r.kind === 'idle').map((r) => r.deployer)),
    watch: { checkedThrough: chainTime, nextAt: Math.min(nextAt, ownIdle) },
  }
}
