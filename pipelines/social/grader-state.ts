import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

/** Where the call grader is (table call_grader_state, migration 012). */
export interface GraderCheckpoint {
  /** Chain time (unix seconds) through which every closed window is graded; 0 before the first pass. */
  gradedThrough: number
  /** Database clock (unix ms) through which newly stored calls were seen. */
  callsNoted: number
  /** Database clock (unix ms) through which tokens noted real were seen. */
  realNoted: number
  /** Detection time (unix ms) of the last reorg handled. */
  reorgsThrough: number
}

export const NO_CHECKPOINT: GraderCheckpoint = { gradedThrough: 0, callsNoted: 0, realNoted: 0, reorgsThrough: 0 }

/** The grader's checkpoint for a chain, read by key; null before its first pass. */
export async function loadCheckpoint(ch: ClickHouseClient, chainId: number): Promise<GraderCheckpoint | null> {
  const [r] = await queryRows<{ graded_through: number; calls_noted: string; real_noted: string; reorgs_through: string }>(
    ch,
    'SELECT graded_through, calls_noted, real_noted, reorgs_through FROM call_grader_state WHERE chain_id = {chain:UInt32} ORDER BY version DESC LIMIT 1',
    { chain: chainId },
  )
  if (!r) return null
  return { gradedThrough: Number(r.graded_through), callsNoted: Number(r.calls_noted), realNoted: Number(r.real_noted), reorgsThrough: Number(r.reorgs_through) }
}

/** Record the checkpoint, after the grades it covers were written: a crash in between re-runs the pass. */
export async function saveCheckpoint(ch: ClickHouseClient, chainId: number, c: GraderCheckpoint, version: number): Promise<void> {
  await ch.insert({
    table: 'call_grader_state',
    values: [{ chain_id: chainId, graded_through: c.gradedThrough, calls_noted: c.callsNoted, real_noted: c.realNoted, reorgs_through: c.reorgsThrough, version }],
    format: 'JSONEachRow',
  })
}
