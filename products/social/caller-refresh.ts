import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { medianOfCounts } from './caller-grade.ts'
import type { Logger } from '../../core/logger.ts'
import { CALLER_STATE_COLUMNS, callerStateRow, sameCallerRow, type CallerInputs, type CallerStateRow } from './caller-state.ts'
import { rebuildClusters, refreshClusters, storedClusters } from './caller-clusters.ts'
import { databaseNow } from '../../core/records/data-clock.ts'
import { chunks } from '../../core/chunks.ts'
import { nextServingSeq } from '../../core/records/serving-changes.ts'

/**
 * Caller records kept by key (caller_state, migration 015; DESIGN §6). A pass reads the authors
 * whose inputs were noted since the last pass (caller_inputs_noted: calls stored, grades written,
 * follow snapshots stored), recomputes the clusters around the accounts whose follows changed,
 * then the records of the authors whose calls, grades or cluster changed, and writes only what
 * differs from the stored rows, naming each written key in caller_changes (which API processes
 * invalidate their caches by). Without a checkpoint (a new table, or a data dir from before it)
 * the pass is the one-time build from caller_stats and follow_snapshots.
 */
export interface CallerStateChanges {
  /** Accounts whose cluster changed. */
  clusters: string[]
  /** Callers whose record changed. */
  callers: string[]
  /** seq of the caller_changes rows written (0: none). */
  seq: number
  /** Set when the pass was the one-time build. */
  built?: boolean
}

/** Inputs noted while a pass reads may commit with an earlier stamp: passes overlap by this. */
const NOTED_OVERLAP_MS = 10_000
const CHUNK = 2_000



/** caller_stats summed for the given authors: its key is author, so this is a keyed read. */
async function inputsOf(ch: ClickHouseClient, authors: string[]): Promise<CallerInputs[]> {
  const rows = await queryRows<{ author: string; calls: string; graded: string; early: string; momentum: string; hits: string; returns: [number[], string[]] }>(
    ch,
    `SELECT author, uniqExactMerge(calls) AS calls, sum(graded) AS graded, sum(early) AS early, sum(momentum) AS momentum, sum(hits) AS hits,
            sumMapMerge(returns) AS returns
     FROM caller_stats WHERE author IN {a:Array(String)} GROUP BY author`,
    { a: authors },
  )
  return rows.map((s) => ({
    author: s.author,
    calls: Number(s.calls),
    graded: Number(s.graded),
    early: Number(s.early),
    momentum: Number(s.momentum),
    hits: Number(s.hits),
    medianReturn1h: medianOfCounts(s.returns[0], s.returns[1].map(Number)),
  }))
}

/** Stored rows of the given authors: caller_state by key, the newest version of each. */
async function storedRows(ch: ClickHouseClient, authors: string[]): Promise<Map<string, CallerStateRow>> {
  const rows = await queryRows<CallerStateRow>(
    ch,
    `SELECT ${CALLER_STATE_COLUMNS} FROM caller_state WHERE author IN {a:Array(String)} ORDER BY author, version DESC LIMIT 1 BY author`,
    { a: authors },
  )
  return new Map(rows.map((r) => [r.author, r]))
}

/** Recompute the records of `authors` (only those in caller_stats have one); write those that changed. */
export async function refreshCallers(ch: ClickHouseClient, authors: string[], version: number): Promise<string[]> {
  const changed: string[] = []
  for (const part of chunks(authors, CHUNK)) {
    const [inputs, stored, clusters] = await Promise.all([inputsOf(ch, part), storedRows(ch, part), storedClusters(ch, part)])
    const rows = inputs
      .map((c) => callerStateRow(c, clusters.get(c.author) || null))
      .filter((r) => {
        const s = stored.get(r.author)
        return !s || !sameCallerRow(r, s)
      })
    if (rows.length) await ch.insert({ table: 'caller_state', values: rows.map((r) => ({ ...r, version })), format: 'JSONEachRow' })
    changed.push(...rows.map((r) => r.author))
  }
  return changed
}

/** Name what changed, after the rows themselves are stored (a reader dropping a key then reloads the new row). */
async function writeChanges(ch: ClickHouseClient, seq: number, clusters: string[], callers: string[]): Promise<void> {
  const rows = [...clusters.map((key) => ({ seq, kind: 'cluster', key })), ...callers.map((key) => ({ seq, kind: 'caller', key }))]
  for (const part of chunks(rows, 10_000)) await ch.insert({ table: 'caller_changes', values: part, format: 'JSONEachRow' })
}

async function loadProgress(ch: ClickHouseClient): Promise<number | null> {
  const [r] = await queryRows<{ t: string }>(ch, 'SELECT noted_through AS t FROM caller_state_progress WHERE id = 0 ORDER BY version DESC LIMIT 1')
  return r ? Number(r.t) : null
}

async function saveProgress(ch: ClickHouseClient, notedThrough: number, version: number): Promise<void> {
  await ch.insert({ table: 'caller_state_progress', values: [{ id: 0, noted_through: notedThrough, version }], format: 'JSONEachRow' })
}

/** Authors noted since `sinceMs`, split by what changed: caller_inputs_noted by its time key. */
async function notedSince(ch: ClickHouseClient, sinceMs: number): Promise<{ callers: string[]; follows: string[] }> {
  const rows = await queryRows<{ author: string; sources: string[] }>(
    ch,
    `SELECT author, groupUniqArray(source) AS sources FROM caller_inputs_noted
     WHERE noted_at >= fromUnixTimestamp64Milli({since:Int64}) GROUP BY author ORDER BY author`,
    { since: Math.max(0, sinceMs) },
  )
  return {
    callers: rows.filter((r) => r.sources.some((s) => s !== 'follows')).map((r) => r.author),
    follows: rows.filter((r) => r.sources.includes('follows')).map((r) => r.author),
  }
}

/** Every author in caller_stats, a page at a time in key order (the one-time build only). */
async function* allAuthors(ch: ClickHouseClient): AsyncGenerator<string[]> {
  let after = ''
  for (;;) {
    const rows = await queryRows<{ author: string }>(
      ch,
      'SELECT DISTINCT author FROM caller_stats WHERE author > {after:String} ORDER BY author LIMIT {n:UInt32}',
      { after, n: CHUNK },
    )
    if (rows.length === 0) return
    yield rows.map((r) => r.author)
    after = rows[rows.length - 1]!.author
  }
}

/**
 * Where caller_state's passes stand, kept between passes by their one runner (the call grader):
 * read once, then kept, and stored when a pass changed a record, or at most every
 * PROGRESS_EVERY_MS otherwise. A restart re-reads the inputs noted since the stored progress, and
 * a pass writes only what differs, so a later store costs repeated reads, never a record.
 */
export interface KeptCallerProgress {
  /** Database clock (unix ms) through which noted inputs were seen; null: never built. Unset: not read yet. */
  through?: number | null
  storedAt: number
  /** The kept value is not stored yet (stored at the runner's stop). */
  pending: boolean
}

/** The longest a pass that changed nothing waits to store the progress it advanced. */
const PROGRESS_EVERY_MS = 30_000

export function keptCallerProgress(): KeptCallerProgress {
  return { storedAt: 0, pending: false }
}

/** Store the kept progress if a pass advanced it without storing (the runner's stop). */
export async function storeKeptProgress(ch: ClickHouseClient, kept: KeptCallerProgress): Promise<void> {
  if (!kept.pending || kept.through == null) return
  await saveProgress(ch, kept.through, nextServingSeq())
  kept.pending = false
}

/**
 * One pass (see the interface comment). Run by the call grader after each of its passes, with its
 * kept progress and the database clock its pass read (taken before anything this pass reads);
 * without them, both are read here and the progress is stored.
 */
export async function refreshCallerState(ch: ClickHouseClient, logger?: Logger, opts: { kept?: KeptCallerProgress; now?: number } = {}): Promise<CallerStateChanges> {
  const { kept } = opts
  const through = kept && kept.through !== undefined ? kept.through : await loadProgress(ch)
  // Taken before anything is read: inputs stored after it are seen by the next pass.
  const now = opts.now ?? (await databaseNow(ch))
  const version = nextServingSeq()
  let clusters: string[]
  let callers: string[] = []
  if (through === null) {
    const started = Date.now()
    clusters = await rebuildClusters(ch, version)
    for await (const page of allAuthors(ch)) callers.push(...(await refreshCallers(ch, page, version)))
    logger?.info({ callers: callers.length, clustered: clusters.length, ms: Date.now() - started }, 'caller state built')
  } else {
    const noted = await notedSince(ch, through - NOTED_OVERLAP_MS)
    clusters = await refreshClusters(ch, noted.follows, version)
    callers = await refreshCallers(ch, [...new Set([...noted.callers, ...clusters])], version)
  }
  const changed = clusters.length > 0 || callers.length > 0
  if (changed) await writeChanges(ch, version, clusters, callers)
  if (!kept || through === null || changed || Date.now() - kept.storedAt >= PROGRESS_EVERY_MS) {
    await saveProgress(ch, now, version)
    if (kept) {
      kept.storedAt = Date.now()
      kept.pending = false
    }
  } else kept.pending = true
  if (kept) kept.through = now
  return { clusters, callers, seq: changed ? version : 0, ...(through === null ? { built: true } : {}) }
}

/**
 * At the social role's start: build caller_state once when it has no checkpoint (a data dir
 * from before migration 015 with callers in it), before the grader's passes begin.
 */
export async function catchUpCallerState(ch: ClickHouseClient, logger: Logger): Promise<CallerStateChanges | null> {
  if ((await loadProgress(ch)) !== null) return null
  return refreshCallerState(ch, logger)
}
