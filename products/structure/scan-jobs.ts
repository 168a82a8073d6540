import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { ScanJob, ScanKind, ScanState, ScanTrigger } from './scan-job.ts'

/**
 * Scan jobs in `scan_jobs` (migration 020): one row per transition, all kept (a job's log); the
 * newest version is the job's state. A token's jobs of one kind are one keyed read on (chain, kind, token).
 */

interface JobRow {
  kind: ScanKind
  token: string
  job_id: string
  trigger_now: ScanTrigger
  state_now: ScanState
  reason_now: string
  requested_ms: string
  updated_ms: string
  through_now: string
}

const iso = (ms: string) => new Date(Number(ms)).toISOString()

function fromRow(r: JobRow): ScanJob {
  return {
    id: r.job_id,
    kind: r.kind,
    token: r.token,
    trigger: r.trigger_now,
    state: r.state_now,
    reason: r.state_now === 'failed' ? r.reason_now : null,
    requestedAt: iso(r.requested_ms),
    updatedAt: iso(r.updated_ms),
    measuredThroughBlock: r.state_now === 'done' ? Number(r.through_now) : null,
  }
}

// Two transitions in one millisecond still order: a per-process counter breaks the tie.
let seq = 0
const version = () => BigInt(Date.now()) * 1000n + BigInt(seq++ % 1000)

const SELECT = `SELECT kind, token, job_id, argMax(trigger, version) AS trigger_now, argMax(state, version) AS state_now,
  argMax(reason, version) AS reason_now, toUnixTimestamp64Milli(min(requested_at)) AS requested_ms, toUnixTimestamp64Milli(max(updated_at)) AS updated_ms,
  argMax(measured_through_block, version) AS through_now, max(version) AS v
  FROM scan_jobs WHERE chain_id = {chain:UInt32} AND kind = {kind:String} AND token = {token:String}`

/** The newest job of a kind for a token (by when it was requested), or null. */
export async function latestScanJob(ch: ClickHouseClient, chainId: number, kind: ScanKind, token: string): Promise<ScanJob | null> {
  const [r] = await queryRows<JobRow>(ch, `${SELECT} GROUP BY kind, token, job_id ORDER BY requested_ms DESC, v DESC LIMIT 1`, { chain: chainId, kind, token })
  return r ? fromRow(r) : null
}

/**
 * Jobs of one trigger queued or running now, among those requested in the last `withinMs`: the
 * length of that lane of the queue. (A job older than that still active was lost by a worker
 * long ago and holds no place.)
 */
export async function activeScanJobCount(ch: ClickHouseClient, chainId: number, trigger: ScanTrigger, withinMs: number): Promise<number> {
  const [r] = await queryRows<{ n: string }>(
    ch,
    `SELECT count() AS n FROM (
       SELECT argMax(state, version) AS s, argMax(trigger, version) AS t FROM scan_jobs
       WHERE chain_id = {chain:UInt32} AND requested_at >= fromUnixTimestamp64Milli({since:Int64})
       GROUP BY kind, token, job_id)
     WHERE s IN ('queued', 'running') AND t = {trigger:String}`,
    { chain: chainId, since: Date.now() - withinMs, trigger },
  )
  return Number(r?.n ?? 0)
}

/** One job by its id, or null. */
export async function scanJob(ch: ClickHouseClient, chainId: number, kind: ScanKind, token: string, id: string): Promise<ScanJob | null> {
  const [r] = await queryRows<JobRow>(ch, `${SELECT} AND job_id = {id:String} GROUP BY kind, token, job_id`, { chain: chainId, kind, token, id })
  return r ? fromRow(r) : null
}

/** Record a job's state (a new job or a transition made with `moveJob`). */
export async function writeScanJob(ch: ClickHouseClient, chainId: number, job: ScanJob): Promise<void> {
  await ch.insert({
    table: 'scan_jobs',
    format: 'JSONEachRow',
    values: [{
      chain_id: chainId, kind: job.kind, token: job.token, job_id: job.id, trigger: job.trigger, state: job.state, reason: job.reason ?? '',
      requested_at: Date.parse(job.requestedAt), updated_at: Date.parse(job.updatedAt), measured_through_block: job.measuredThroughBlock ?? 0,
      version: version().toString(),
    }],
    // A retried job (failed, then requested again) never repeats a row's content, but be explicit.
    clickhouse_settings: { insert_deduplicate: 0 },
  })
}
