import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { CALLER_STATE_COLUMNS, callerRecordOfRow, type CallerRecord, type CallerStateRow } from './caller-state.ts'
import type { Logger } from '../../core/logger.ts'
import { createLateChanges, LATE_CHANGES_WINDOW_US } from '../../core/serving/late-changes.ts'
import { createKeyedCache } from '../../core/serving/keyed-cache.ts'
import type { Watermarks } from '../../core/serving/watermarks.ts'
import { readAheadWhileAsked } from '../../core/serving/read-ahead-on-advance.ts'
import { LruMap } from '../../core/serving/lru-map.ts'
import { backgroundRunner } from '../../core/serving/background.ts'
import { createRankedCallers } from './ranked-callers.ts'
import { chunks } from '../../core/chunks.ts'

export type { CallerRecord }

export interface MirrorRecord {
  chain: 'solana' | 'base'
  handle: string
  calls: number
  early_rate: number
  momentum_rate: number
  median_return_1h: number
  score: number
  updated_at: string
}

/** /signals/calls filters on the caller's record. */
export interface SignalFilter {
  minEarlyRate: number
  minGraded: number
  minRankScore: number
  includeCoordinated: boolean
}

export interface SignalCall {
  author: string
  token: string
  calledAt: number
  capturedAt: number
}

/**
 * Callers and mutual-follow clusters as the social endpoints read them, one key at a time
 * (DESIGN §6). Records come from caller_state and account_clusters, which the pipeline keeps for
 * the keys whose inputs changed (products/social/caller-refresh.ts); they are cached here by key,
 * bounded by `maxEntries` (SERVING_CACHE_ENTRIES) per cache, and dropped key by key as
 * caller_changes names them. Memory does not grow with the number of callers.
 */
export interface SocialServing {
  caller(handle: string): Promise<CallerRecord | undefined>
  /** Records of the given handles (absent: not a caller). */
  callers(handles: string[]): Promise<Map<string, CallerRecord>>
  /** Mutual-follow cluster ids of the given accounts (absent: in no cluster). */
  clusters(accounts: string[]): Promise<Map<string, string>>
  /** Measured callers by score, then handle: read whole once, then kept from the callers each sync names. */
  ranked(): Promise<CallerRecord[]>
  /** Mirrored records of another chain by score, then handle: read once per data version. */
  mirrors(chain: 'solana' | 'base'): Promise<MirrorRecord[]>
  /** Calls of callers passing `filter`, first captured at or after `since`, in capture order, at most `cap`. */
  signalCalls(filter: SignalFilter, since: number, cap: number): Promise<SignalCall[]>
  /** Catch up with the pipeline: drop the cached keys changed since the last sync. */
  sync(): Promise<void>
  /**
   * Whether kept keys answer at the data version now (what `sync` waits for), without a promise;
   * between versions it starts the background sync `sync` would.
   */
  readyNow(): boolean
  /** The records of `handles` when every one is kept (absent: not a caller), else undefined: it never reads. */
  keptCallers(handles: readonly string[]): Map<string, CallerRecord> | undefined
  /**
   * Call `listener` with the changes each sync applies (kinds `caller`, `cluster`, `author` naming
   * an account that posted calls, and `mention` or `sighting` naming a token newly mentioned or
   * seen in a room), or with null when every cached key was dropped.
   */
  onChanges(listener: (changes: SocialChange[] | null) => void): () => void
  cachedEntries(): number
}

/** One row of caller_changes. */
export interface SocialChange {
  kind: string
  key: string
}

/**
 * The refresh runs in the social role, which may be another process: besides each new data
 * version, the change log is read in the background at most this often while asked (a range read
 * at the end of its key).
 */
const SYNC_EVERY_MS = 1_000
/** Signal filters whose lists are merged again as soon as the data moves (the most recently asked). */
const SIGNAL_FILTERS_READ_AHEAD = 8
/** A signal filter's merged list, as kept once per version. */
const signalListKey = (f: SignalFilter) => `signal-calls:${f.minGraded}:${f.minEarlyRate}:${f.minRankScore}:${f.includeCoordinated}`

/** More changes than this since the last sync (a rebuild): drop every cached key instead. */
const MAX_CHANGES_PER_SYNC = 20_000
/** Keys per IN list. */
const CHUNK = 5_000

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Every call of the given authors: `calls` by its (author, token) key. */
async function readCalls(ch: ClickHouseClient, authors: string[]): Promise<Map<string, SignalCall[]>> {
  const out = new Map<string, SignalCall[]>(authors.map((a) => [a, []]))
  for (const part of chunks(authors, CHUNK)) {
    const rows = await queryRows<{ author: string; token: string; called_at: string; captured_at: string }>(
      ch,
      `SELECT author, token, toUnixTimestamp(min(called_at)) AS called_at, toUnixTimestamp(min(captured_at)) AS captured_at
       FROM calls WHERE author IN {authors:Array(String)} GROUP BY author, token`,
      { authors: part },
    )
    for (const r of rows) out.get(r.author)!.push({ author: r.author, token: r.token, calledAt: Number(r.called_at), capturedAt: Number(r.captured_at) })
  }
  return out
}

export function createSocialServing(deps: { ch: ClickHouseClient; watermarks: Watermarks; logger: Logger; maxEntries: number }): SocialServing {
  const { ch, watermarks } = deps
  const callerRows = createKeyedCache<CallerRecord | null>(deps.maxEntries, 'caller_rows')
  const clusterRows = createKeyedCache<string | null>(deps.maxEntries, 'cluster_rows')
  const perVersion = createKeyedCache<unknown>(16, 'social_per_version')
  const authorCalls = createKeyedCache<SignalCall[]>(deps.maxEntries, 'author_calls')
  // Access path: caller_state FINAL once (one row per caller), then by its key (author) for the
  // callers a sync names.
  const rankedCallers = createRankedCallers({
    async all() {
      const rows = await queryRows<CallerStateRow>(ch, `SELECT ${CALLER_STATE_COLUMNS} FROM caller_state FINAL WHERE measured = 1`)
      return rows.map(callerRecordOfRow)
    },
    some: (handles) => serving.callers(handles),
  })
  let synced = { version: '', seq: -1, at: 0 }
  let syncing: Promise<void> | undefined
  const inBackground = backgroundRunner('social-serving-sync')
  const listeners = new Set<(changes: SocialChange[] | null) => void>()
  const notify = (changes: SocialChange[] | null) => {
    for (const l of listeners) l(changes)
  }
  // Mentions and sightings are named by the social pipeline's writers, callers by the caller-state
  // pass: several writers, so such a row may commit below the cursor; it is looked for below it too.
  const late = createLateChanges(LATE_CHANGES_WINDOW_US)

  // Callers change when chain data (grades) or social data (calls, follows) advance.
  const versionNow = () => watermarks.socialChainVersion(4663)

  /** The newest seq: caller_changes read backwards from the end of its key. */
  async function lastSeq(): Promise<number> {
    const [r] = await queryRows<{ seq: string }>(ch, 'SELECT seq FROM caller_changes ORDER BY seq DESC LIMIT 1')
    return Number(r?.seq ?? 0)
  }

  async function syncTo(version: string): Promise<void> {
    const at = Date.now()
    if (synced.seq < 0) {
      perVersion.clear()
      synced = { version, seq: await lastSeq(), at }
      callerRows.clear()
      clusterRows.clear()
      authorCalls.clear()
      rankedCallers.reset()
      notify(null)
      return
    }
    // Changes after the last seen seq (and late mention rows just below it): a range read on caller_changes' key.
    const read = await queryRows<{ seq: string; kind: string; key: string }>(
      ch,
      `SELECT seq, kind, key FROM caller_changes WHERE seq > {from:UInt64} AND (seq > {after:UInt64} OR kind IN ('mention', 'sighting', 'author'))
       ORDER BY seq LIMIT {limit:UInt32}`,
      { from: late.from(synced.seq), after: synced.seq, limit: MAX_CHANGES_PER_SYNC + 1 },
    )
    if (read.length > MAX_CHANGES_PER_SYNC) {
      perVersion.clear()
      callerRows.clear()
      clusterRows.clear()
      authorCalls.clear()
      rankedCallers.reset()
      synced = { version, seq: await lastSeq(), at }
      notify(null)
      return
    }
    const changes = late.unseen(read.map((r) => ({ seq: Number(r.seq), kind: r.kind, key: r.key })))
    // Lists read once per version are read again when the version moved or a caller changed.
    if (version !== synced.version || changes.length) perVersion.clear()
    for (const c of changes) {
      if (c.kind === 'cluster') clusterRows.delete(c.key)
      else if (c.kind === 'caller') {
        callerRows.delete(c.key)
        rankedCallers.changed([c.key])
      }
      else if (c.kind === 'author') authorCalls.delete(c.key)
    }
    synced = { version, seq: changes.reduce((m, c) => Math.max(m, c.seq), synced.seq), at }
    if (changes.length) notify(changes)
  }

  function startSync(version: string): Promise<void> {
    syncing ??= syncTo(version).finally(() => {
      syncing = undefined
    })
    return syncing
  }

  /**
   * Sync when the data version moved (the request waits: it answers at the new version); between
   * versions, at most every SYNC_EVERY_MS, a sync in the background picks up what a social role in
   * another process named, without holding any request. Concurrent callers share one sync.
   */
  async function ready(): Promise<void> {
    if (readyNow()) return
    const version = versionNow()
    // A sync already running may have begun before this version: wait for it, then sync on, until
    // a sync begun at this version has read the changes. One the advance began ahead of the
    // request (a read ahead) is such a sync: the request joins it rather than reading again.
    while (synced.version !== version) await startSync(version)
  }

  /** Whether the kept keys answer at the data version now (what `ready` waits for), without a promise. */
  function readyNow(): boolean {
    const version = versionNow()
    if (version !== synced.version) return false
    if (!syncing && Date.now() - synced.at >= SYNC_EVERY_MS) {
      inBackground(() => void startSync(version).catch((err) => deps.logger.warn({ err: (err as Error).message }, 'social serving sync failed')))
    }
    return true
  }

  function oncePerVersion<T>(key: string, load: () => Promise<T>): Promise<T> {
    return ready().then(() => perVersion.get(key, load) as Promise<T>)
  }

  /**
   * The eligible callers from the ranked list (once per version), filtered here; their calls
   * kept per author (read from `calls` by its (author, token) key, dropped when the mentions
   * writer names the author), merged in capture order once per version and filter.
   */
  function mergedCalls(f: SignalFilter, key = signalListKey(f)): Promise<SignalCall[]> {
    return oncePerVersion(key, async () => {
      const eligible = (await serving.ranked())
        .filter((r) => r.graded >= f.minGraded && r.earlyRate >= f.minEarlyRate && (r.score ?? 0) / 100 >= f.minRankScore && (f.includeCoordinated || r.cluster === null))
        .map((r) => r.handle)
      const byAuthor = await authorCalls.getMany(eligible, (missing) => readCalls(ch, missing), [])
      return [...byAuthor.values()].flat().sort((a, b) => a.capturedAt - b.capturedAt || cmp(a.author, b.author) || cmp(a.token, b.token))
    })
  }

  // The signal lists asked lately (a few filters: what pollers of /signals/calls follow), merged
  // again when the data they are read from moves, so the first poll after it reads nothing.
  const askedFilters = new LruMap<SignalFilter>(SIGNAL_FILTERS_READ_AHEAD)
  const mergeAskedSignals = () => {
    for (const f of askedFilters.values()) mergedCalls(f).catch(() => {})
  }
  const signalsAhead = readAheadWhileAsked(watermarks, (source) => {
    if (source === 4663 || source === 'social') mergeAskedSignals()
  })
  // A sync between versions that applied changes (a caller graded in another process) also
  // dropped the merged lists: merge them again then too.
  listeners.add(() => {
    if (signalsAhead.lately()) mergeAskedSignals()
  })

  const serving: SocialServing = {
    async caller(handle) {
      return (await serving.callers([handle])).get(handle)
    },
    /** Access path: caller_state by its key (author), the newest version of each, for the misses only. */
    async callers(handles) {
      await ready()
      const rows = await callerRows.getMany(
        handles,
        async (missing) => {
          const out = new Map<string, CallerRecord>()
          for (const part of chunks(missing, CHUNK)) {
            const found = await queryRows<CallerStateRow>(
              ch,
              `SELECT ${CALLER_STATE_COLUMNS} FROM caller_state WHERE author IN {keys:Array(String)} ORDER BY author, version DESC LIMIT 1 BY author`,
              { keys: part },
            )
            for (const r of found) out.set(r.author, callerRecordOfRow(r))
          }
          return out
        },
        null,
      )
      const out = new Map<string, CallerRecord>()
      for (const [k, r] of rows) if (r) out.set(k, r)
      return out
    },
    keptCallers(handles) {
      const out = new Map<string, CallerRecord>()
      for (const h of handles) {
        const row = callerRows.kept(h)
        if (!row) return undefined
        if (row.value) out.set(h, row.value)
      }
      return out
    },
    readyNow,
    /** Access path: account_clusters by its key (account), the newest version of each, for the misses only. */
    async clusters(accounts) {
      await ready()
      const rows = await clusterRows.getMany(
        accounts,
        async (missing) => {
          const out = new Map<string, string | null>()
          for (const part of chunks(missing, CHUNK)) {
            const found = await queryRows<{ account: string; cluster: string }>(
              ch,
              'SELECT account, argMax(cluster, version) AS cluster FROM account_clusters WHERE account IN {keys:Array(String)} GROUP BY account',
              { keys: part },
            )
            for (const r of found) out.set(r.account, r.cluster || null)
          }
          return out
        },
        null,
      )
      const out = new Map<string, string>()
      for (const [k, c] of rows) if (c) out.set(k, c)
      return out
    },
    async ranked() {
      await ready()
      return rankedCallers.list()
    },
    /** Access path: caller_mirrors FINAL by its (chain, handle) key prefix; once per version. */
    mirrors(chain) {
      return oncePerVersion(`mirrors:${chain}`, async () => {
        const rows = await queryRows<MirrorRecord>(
          ch,
          `SELECT chain, handle, calls, early_rate, momentum_rate, median_return_1h, score, updated_at FROM caller_mirrors FINAL
           WHERE chain = {chain:String} ORDER BY score DESC, handle`,
          { chain },
        )
        return rows.map((m) => ({ ...m, calls: Number(m.calls), score: Number(m.score) }))
      })
    },
    /** The merged calls of `f` (mergedCalls), from the first captured at or after `since`. */
    async signalCalls(f, since, cap) {
      const key = signalListKey(f)
      signalsAhead.asked()
      if (askedFilters.get(key) === undefined) askedFilters.set(key, f)
      const merged = await mergedCalls(f, key)
      // The first call captured at or after `since`: a binary search on the merged order.
      let lo = 0
      let hi = merged.length
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (merged[mid]!.capturedAt < since) lo = mid + 1
        else hi = mid
      }
      return merged.slice(lo, lo + cap)
    },
    sync: ready,
    onChanges(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    cachedEntries: () => callerRows.size() + clusterRows.size(),
  }
  return serving
}

declare module '../../core/endpoint/deps.ts' {
  interface ApiDeps {
    /** Caller records and mutual-follow clusters, read by key and cached until the pipeline changes them. */
    social: SocialServing
  }
}
