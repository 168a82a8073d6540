import { createHash } from 'node:crypto'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { tupleParam } from '../../core/clickhouse.ts'
import { type CallKey } from './grade-reads.ts'

/** A graded call as table call_grades holds it (times in unix seconds; runAt 0: no run). */
export interface CallGrade {
  author: string
  token: string
  calledAt: number
  capturedAt: number
  postId: string
  entryPrice: number
  entryAt: number
  exitPrice: number
  exitAt: number
  return1h: number
  runAt: number
  early: boolean
  momentum: boolean
}

interface GradeRow {
  author: string
  token: string
  called_at: number
  captured_at: number
  post_id: string
  entry_price: number
  entry_at: number
  exit_price: number
  exit_at: number
  return_1h: number
  run_at: number
  early: number
  momentum: number
  graded_at: number
  version: number
  sign: number
}

export interface StoredGrade extends CallGrade {
  version: number
}

const COLUMNS =
  'author, token, toUnixTimestamp(called_at) AS called_at, toUnixTimestamp(captured_at) AS captured_at, post_id, entry_price, toUnixTimestamp(entry_at) AS entry_at, exit_price, toUnixTimestamp(exit_at) AS exit_at, return_1h, toUnixTimestamp(run_at) AS run_at, early, momentum, graded_at, version, sign'

function fromRow(r: Record<string, unknown>): StoredGrade {
  return {
    author: String(r.author), token: String(r.token), calledAt: Number(r.called_at), capturedAt: Number(r.captured_at), postId: String(r.post_id),
    entryPrice: Number(r.entry_price), entryAt: Number(r.entry_at), exitPrice: Number(r.exit_price), exitAt: Number(r.exit_at),
    return1h: Number(r.return_1h), runAt: Number(r.run_at), early: Number(r.early) === 1, momentum: Number(r.momentum) === 1, version: Number(r.version),
  }
}

/**
 * The current grade of each call in `keys` (absent: not graded): the latest row of the key in
 * call_grades, read by its key (author, token). A cancel row shares its version with the row it
 * cancels and sorts first, so a key whose latest row is a cancel is not graded.
 */
export async function currentGrades(ch: ClickHouseClient, keys: CallKey[]): Promise<Map<string, StoredGrade>> {
  if (keys.length === 0) return new Map()
  const rows = await queryRows<Record<string, unknown>>(
    ch,
    `SELECT ${COLUMNS} FROM call_grades WHERE (author, token) IN {keys:Array(Tuple(String, String))}
     ORDER BY version DESC, sign ASC LIMIT 1 BY author, token`,
    { keys: tupleParam(keys) },
  )
  return new Map(rows.filter((r) => Number(r.sign) === 1).map((r) => [callId(String(r.author), String(r.token)), fromRow(r)]))
}

/** A call's id in the grader's maps. */
export const callId = (author: string, token: string) => `${author}\u0000${token}`

/** Whether two grades say the same (versions aside). */
export function sameGrade(a: CallGrade, b: CallGrade): boolean {
  return (
    a.calledAt === b.calledAt && a.capturedAt === b.capturedAt && a.postId === b.postId && a.entryPrice === b.entryPrice && a.entryAt === b.entryAt &&
    a.exitPrice === b.exitPrice && a.exitAt === b.exitAt && a.return1h === b.return1h && a.runAt === b.runAt && a.early === b.early && a.momentum === b.momentum
  )
}

/** A change to a call's grade: cancel the stored one, write the new one (either may be absent). */
export interface GradeChange {
  cancel?: StoredGrade
  write?: CallGrade
}

function toRow(g: CallGrade, gradedAt: number, version: number, sign: 1 | -1): GradeRow {
  return {
    author: g.author, token: g.token, called_at: g.calledAt, captured_at: g.capturedAt, post_id: g.postId,
    entry_price: g.entryPrice, entry_at: g.entryAt, exit_price: g.exitPrice, exit_at: g.exitAt, return_1h: g.return1h,
    run_at: g.runAt, early: g.early ? 1 : 0, momentum: g.momentum ? 1 : 0, graded_at: gradedAt, version, sign,
  }
}

/**
 * Write grade changes as one insert. Cancels come first with the cancelled row's version (so
 * they replace it), new grades carry `version`, which is above every stored one. The insert is
 * deduplicated by its content (versions included) in call_grades and its by-token copy, so a
 * retried insert is stored once; what keeps the summaries exact is that a pass writes only what
 * differs from the stored grades, so a pass run again writes nothing.
 */
export async function writeGradeChanges(ch: ClickHouseClient, changes: GradeChange[], gradedAt: number, version: number): Promise<number> {
  const rows: GradeRow[] = []
  for (const c of changes) if (c.cancel) rows.push(toRow(c.cancel, gradedAt, c.cancel.version, -1))
  for (const c of changes) if (c.write) rows.push(toRow(c.write, gradedAt, version, 1))
  if (rows.length === 0) return 0
  const json = JSON.stringify(rows)
  await ch.insert({
    table: 'call_grades',
    values: rows,
    format: 'JSONEachRow',
    clickhouse_settings: {
      insert_deduplicate: 1,
      insert_deduplication_token: `call-grades:${createHash('sha256').update(json).digest('hex')}`,
      deduplicate_blocks_in_dependent_materialized_views: 1,
    },
  })
  return rows.length
}
