import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import { DEPLOYER_STATE_COLUMNS, deployerRecordOfRow, latestDeployerRows, type DeployerHistory, type DeployerRecord, type DeployerStateRow } from './deployer-state.ts'
import { batchMarkersBetween, changesOfPush, lastServedBatch, mayHaveLaunched, rollsBack, servingChangesBetween, type PushedBatch, type ServingChange } from '../../core/records/serving-changes.ts'
import { createLateChanges, LATE_CHANGES_WINDOW_US } from '../../core/serving/late-changes.ts'
import { latestTokenRows, TOKEN_STATE_COLUMNS, tokenRecordOf, type TokenRecord, type TokenStateRow } from './token-state.ts'
import type { Store } from '../../core/store/types.ts'
import { createFeedWindow, type FeedItemRef } from '../../core/serving/feed-window.ts'
import { createKeyedCache, type KeyedCache } from '../../core/serving/keyed-cache.ts'
import { createSharedRows, type SharedRows } from '../../core/serving/shared-rows.ts'
import { createTopDeployers, type TopDeployers } from './top-deployers.ts'
import type { Watermarks } from '../../core/serving/watermarks.ts'

export type { DeployerHistory, DeployerRecord, TokenRecord }

/** A page of the launch feed: tokens in feed order and the cursor of the last one examined. */
export interface FeedPage {
  tokens: TokenRecord[]
  /** visible_at (µs) of the first feed item examined, or null when none was. */
  firstUs: number | null
  /** visible_at (µs) of the last feed item examined, or null when none was. */
  lastUs: number | null
}

/**
 * Chain-4663 tokens and deployers as the products read them, one key at a time (DESIGN §6).
 * Records come from token_state / deployer_state, which the pipeline refreshes for the keys
 * each batch touched; they are cached here by key, bounded by `maxEntries`, and dropped key by
 * key as serving_changes names them. Nothing here reads all tokens or all deployers except the
 * totals, which count deployer_state (one row per deployer) once per batch while asked; the
 * leaderboard's top is read once and kept from the deployers each change names (./top-deployers.ts).
 */
export interface TokenServing {
  readonly chainId: number
  /** The block answers are measured through (the last served batch), or null. */
  measuredThrough(): number | null
  /**
   * measuredThrough() when the kept records are at the watermark now (what `sync()` would give
   * at once), else undefined: for an endpoint's kept answer, which waits for nothing.
   */
  keptThrough(): number | null | undefined
  /** Unix seconds of that block: the clock "dead" (idle 72 h) is decided at. */
  chainTime(): number
  token(address: string): Promise<TokenRecord | undefined>
  /**
   * What `token` and the `deployer` of its token answer, when both are kept and the serving is
   * at the watermark; else undefined (then the promises, which load and sync). The busy path of
   * /token: no promise per call.
   */
  keptToken(address: string): { token: TokenRecord | undefined; deployer: DeployerRecord | undefined } | undefined
  tokens(addresses: string[]): Promise<Map<string, TokenRecord>>
  deployer(address: string): Promise<DeployerRecord | undefined>
  deployers(addresses: string[]): Promise<Map<string, DeployerRecord>>
  /** The deployer's record and its newest LAUNCH_HISTORY_LIMIT launches. */
  deployerHistory(address: string): Promise<DeployerHistory | undefined>
  /** Launches with visible_at in (afterUs, throughUs], oldest first, at most `limit`. */
  feedAfter(afterUs: number, throughUs: number, limit: number): Promise<FeedPage>
  /** Launches with visible_at <= throughUs, newest first, at most `limit`, before `beforeUs` when given. */
  feedBefore(throughUs: number, limit: number, beforeUs?: number): Promise<FeedPage>
  /** Tokens whose symbol is `symbol` (case-insensitive), or starts with it when `prefix`. */
  bySymbol(symbol: string, opts?: { prefix?: boolean; limit?: number }): Promise<TokenRecord[]>
  /** Tokens whose name contains `text` (case-insensitive; 3 characters at least). */
  byName(text: string, limit: number): Promise<TokenRecord[]>
  /** Tokens whose latest WETH price lies in one of the ranges. */
  byPrice(ranges: Array<[lo: number, hi: number]>, limit: number): Promise<TokenRecord[]>
  /** Deployers ranked by score, then real, then launched; with the count of deployers. */
  leaderboard(limit: number): Promise<{ deployers: DeployerRecord[]; total: number }>
  /** Deployers and their launched, real and dead tokens, summed. */
  totals(): Promise<{ deployers: number; launched: number; real: number; dead: number }>
  /**
   * Wait (at most `ms`) until a launch past the cursor `afterUs` is served; true when one is.
   * The long poll of /feed/new: woken by the batch that serves the launch, not by polling.
   */
  waitForLaunch(afterUs: number, ms: number, signal?: AbortSignal): Promise<boolean>
  /** Catch up with the pipeline: drop the cached keys changed since the last sync. */
  sync(): Promise<void>
  /**
   * Call `listener` with the changes each sync applies (kinds `token`, `deployer`, `wallet`, and
   * `scan` naming a token whose structure scan was stored), or with null when every kept key is
   * to be dropped (a first sync, a rebuild, a reorg).
   */
  onChanges(listener: (changes: ServingChange[] | null) => void): () => void
  cachedEntries(): number
  /** Batches applied as their writer pushed them (applyPush), not read. */
  pushesApplied(): number
}

/** Launches listed in a deployer's history, newest first. */
export const LAUNCH_HISTORY_LIMIT = 100

/** Launches the feed keeps in memory by default (its recent window). */
export const FEED_WINDOW_ITEMS = 20_000

/** Between batches, what other roles name (scans) is read at least this often. */
const LATE_SYNC_MS = 1_000

/** Where a database's kept rows of one kind and chain live in the shared store (the database's identity keeps deployments apart). */
export function sharedRowsPrefix(identity: string, chainId: number, kind: 'token' | 'deployer'): string {
  return `serving:${identity}:${chainId}:${kind}:`
}

/** Kept rows of each kind a sync reads again together at most (the rest are read when asked). */
const REREAD_KEYS = 500

/** The kept rows a sync dropped, by kind. */
interface Dropped {
  tokens: string[]
  deployers: string[]
}

/** More changes than this since the last sync (a backfill): drop every cached key instead. */
const MAX_CHANGES_PER_SYNC = 20_000

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`)
}

export function createTokenServing(
  deps: {
    ch: ClickHouseClient
    watermarks: Watermarks
    logger: Logger
    maxEntries: number
    /** Shared between API processes (Redis) when given. */
    store?: Store
    /** Launches of the feed's recent window kept in memory (FEED_WINDOW_ITEMS when not given; 0: none, every page reads the engine). */
    feedWindowItems?: number
    /** Changes one sync reads by key (MAX_CHANGES_PER_SYNC when not given); past it, everything kept is dropped. */
    maxChangesPerSync?: number
    /**
     * Whether requests wait on it (default true): between batches it then reads what other
     * writers named (at most every LATE_SYNC_MS), and a sync reads the kept rows it dropped again
     * at once, so no request waits for them. A follower that asks for a few keys once per batch
     * (the alert producers) sets false: it would pay both on every batch for nothing it asks.
     */
    answersRequests?: boolean
  },
  chainId = 4663,
): TokenServing {
  const { ch, watermarks } = deps
  const maxChanges = deps.maxChangesPerSync ?? MAX_CHANGES_PER_SYNC
  const answersRequests = deps.answersRequests ?? true
  const tokenRows = createKeyedCache<TokenStateRow | null>(deps.maxEntries, 'token_rows')
  const deployerRows = createKeyedCache<DeployerStateRow | null>(deps.maxEntries, 'deployer_rows')
  let identity: Promise<string> | undefined
  // The database's identity (migration 013) keeps rows of another deployment on the same Redis apart.
  const prefix = (kind: 'token' | 'deployer') => () =>
    (identity ??= queryRows<{ id: string }>(ch, 'SELECT id FROM serving_identity LIMIT 1').then((r) => r[0]?.id ?? 'none')).then((id) => sharedRowsPrefix(id, chainId, kind))
  const shared = deps.store
    ? { token: createSharedRows<TokenStateRow>(deps.store, prefix('token'), deps.maxEntries), deployer: createSharedRows<DeployerStateRow>(deps.store, prefix('deployer'), deps.maxEntries) }
    : undefined

  /** Misses of the process cache: shared rows first (when a store is given), then ClickHouse by key. */
  function throughShared<R>(kind: 'token' | 'deployer', read: (keys: string[]) => Promise<Map<string, R>>) {
    return async (missing: string[]): Promise<Map<string, R | null>> => {
      const sharedRows = shared?.[kind] as SharedRows<R> | undefined
      const seq = synced.seq
      const found = sharedRows ? await sharedRows.getMany(missing) : new Map<string, R | null>()
      const rest = missing.filter((k) => !found.has(k))
      if (rest.length) {
        const read_ = await read(rest)
        const fetched = new Map<string, R | null>(rest.map((k) => [k, read_.get(k) ?? null]))
        void sharedRows?.setMany(fetched, seq)
        for (const [k, v] of fetched) found.set(k, v)
      }
      return found
    }
  }
  const histories = createKeyedCache<TokenStateRow[]>(Math.max(100, Math.floor(deps.maxEntries / 100)), 'token_histories')
  const perBatch = createKeyedCache<unknown>(64, 'token_per_batch')
  let synced = { seq: 0, block: null as number | null, chainTime: 0 }
  let syncing: Promise<void> | undefined
  /** Set by a sync that read a rollback (or skipped batches that may hold one): the window is read again. */
  let windowStale = false
  /** Set by a sync that read a batch which may have served launches: the window reads what follows it. */
  let launchesPending = true
  const listeners = new Set<(changes: ServingChange[] | null) => void>()
  const notify = (changes: ServingChange[] | null) => {
    for (const l of listeners) l(changes)
  }
  // Scans are named by the scans role, batches by the pipeline: two writers, so a scan row may
  // commit below the cursor; it is looked for below it too.
  const lateScans = createLateChanges(LATE_CHANGES_WINDOW_US)

  /** Drop what is kept of a changed key (the other kinds are the listeners'); the kept row keys it dropped are added to `dropped`. */
  function dropChanged(c: ServingChange, dropped: Dropped): void {
    if (c.kind === 'token') {
      if (tokenRows.has(c.key)) dropped.tokens.push(c.key)
      tokenRows.delete(c.key)
      shared?.token.changed(c.key, c.seq)
    } else if (c.kind === 'deployer') {
      if (deployerRows.has(c.key)) dropped.deployers.push(c.key)
      deployerRows.delete(c.key)
      histories.delete(c.key)
      shared?.deployer.changed(c.key, c.seq)
    }
  }

  /**
   * The kept rows a sync dropped, read again at once, together (after `synced` moved, so what is
   * shared is tagged with the new change): a batch changes a handful of the asked tokens, and
   * each one's next request read it alone (on the default world under load, a dozen keyed reads
   * a batch). Rows the push handed over are kept already; past REREAD_KEYS, a row is read when asked.
   */
  function rereadDropped(dropped: Dropped): void {
    if (!answersRequests) return
    const tokens = dropped.tokens.filter((k) => !tokenRows.has(k)).slice(0, REREAD_KEYS)
    const deployers = dropped.deployers.filter((k) => !deployerRows.has(k)).slice(0, REREAD_KEYS)
    // A failed read is not kept (the keyed cache): the next request reads the key itself.
    if (tokens.length) tokenRows.getMany(tokens, loadTokenRows, null).catch(() => {})
    if (deployers.length) deployerRows.getMany(deployers, loadDeployerRows, null).catch(() => {})
  }

  /**
   * The batch of the chain's last advance as its writer pushed it (one host: the pipeline's
   * process tells the API's), applied when it is the whole of what its writer changed since the
   * change applied here last (its `after`), nothing is syncing and the feed window is current:
   * its changes drop their keys as a read sync's would, with what other writers named since the
   * batch before (a repair's keys, late scans: read by the writer, `others`); its launched
   * tokens' rows are kept and its launch_feed rows appended, so no request after it waits on a
   * read, and a long poll at the feed's head is answered from memory. (Read here instead, before
   * answering, that change read held every request after a batch 25-57 ms on a busy engine.) A
   * rollback is never pushed, nor is another writer's batch marker applied from one (rows
   * changed under the service: read as a sync reads it). Answers whether it was applied (else:
   * read as ever).
   */
  function applyPush(target: number): boolean {
    const p = watermarks.pushed(chainId)
    if (!p || p.seq !== target || synced.seq === 0 || synced.seq !== p.after || syncing) return false
    if (windowStale || launchesPending || windowServed !== synced.block || (synced.block !== null && p.watermark < synced.block)) return false
    const others = p.others.filter((c) => c.kind !== 'scan')
    const scans = p.others.filter((c) => c.kind === 'scan')
    const own = changesOfPush(p)
    if (others.some((c) => c.kind === 'batch') || others.length + scans.length + own.length > maxChanges) return false
    // Only now: `unseen` remembers the scans as applied.
    const changes = [...others, ...lateScans.unseen(scans), ...own]
    perBatch.clear()
    const dropped: Dropped = { tokens: [], deployers: [] }
    for (const c of changes) dropChanged(c, dropped)
    for (const row of p.launchedRows) tokenRows.set(row.token, row as unknown as TokenStateRow)
    for (const row of p.deployerRows) deployerRows.set(row.deployer, row as unknown as DeployerStateRow)
    const lastUs = window.lastUs()
    window.append(p.feed.filter((f) => lastUs === null || f.us > lastUs))
    synced = { seq: p.seq, block: p.watermark, chainTime: p.chainTime }
    windowServed = p.watermark
    rereadDropped(dropped)
    notify(changes)
    pushes++
    return true
  }

  let pushes = 0

  async function syncTo(target: number): Promise<void> {
    const read = synced.seq === 0 ? [] : await servingChangesBetween(ch, chainId, synced.seq, target, maxChanges + 1, { lateKind: 'scan', from: lateScans.from(synced.seq) })
    if (target > synced.seq) perBatch.clear()
    if (synced.seq === 0 || read.length > maxChanges) {
      for (const c of [tokenRows, deployerRows, histories]) c.clear()
      // The batches skipped may hold a rollback (it deleted launches the window holds): their
      // markers tell, and only then is the window read again (a backfill's batches each skip).
      const markers = synced.seq === 0 ? null : await batchMarkersBetween(ch, chainId, synced.seq, target)
      if (!markers || rollsBack(markers, synced.block)) windowStale = true
      if (!markers || mayHaveLaunched(markers)) launchesPending = true
      const b = await lastServedBatch(ch, chainId)
      synced = b && b.seq >= target ? { seq: b.seq, block: b.watermark, chainTime: b.chainTime } : { seq: target, block: watermarks.get(chainId), chainTime: synced.chainTime }
      shared?.token.trustFrom(synced.seq)
      shared?.deployer.trustFrom(synced.seq)
      notify(null)
      return
    }
    const changes = [...read.filter((c) => c.kind !== 'scan'), ...lateScans.unseen(read.filter((c) => c.kind === 'scan'))]
    const dropped: Dropped = { tokens: [], deployers: [] }
    for (const c of changes) dropChanged(c, dropped)
    // A served block lower than the one served before it is a reorg's rollback (its refresh writes
    // a marker at the block it rolled back to; a process that died before that refresh owes it and
    // writes it on start): what was kept of the removed blocks (their scans too) goes. Every marker
    // read counts, not only the last: new batches may follow the rollback within one sync.
    const marker = changes.filter((c) => c.kind === 'batch').at(-1)
    const rolledBack = rollsBack(changes, synced.block)
    if (rolledBack) windowStale = true
    if (mayHaveLaunched(changes)) launchesPending = true
    synced = marker ? { seq: marker.seq, block: marker.watermark, chainTime: marker.chainTime } : { ...synced, seq: target }
    rereadDropped(dropped)
    if (rolledBack || changes.length) notify(rolledBack ? null : changes)
  }

  // The feed's recent window (launch_feed rows of served blocks), appended once per served batch.
  const feedItems = deps.feedWindowItems ?? FEED_WINDOW_ITEMS
  const window = createFeedWindow(feedItems)
  let windowServed: number | null = null

  async function refreshWindow(): Promise<void> {
    const served = synced.block
    if (served === null || (served === windowServed && !windowStale)) return
    // The batches since the window's last read served no launch (their markers say): nothing to append.
    if (windowServed !== null && !windowStale && !launchesPending) {
      windowServed = served
      return
    }
    const rowsOf = (rows: Array<{ token: string; us: string; block: string }>): FeedItemRef[] => rows.map((r) => ({ us: Number(r.us), key: r.token, block: Number(r.block) }))
    const reload = async () => {
      const rows = await queryRows<{ token: string; us: string; block: string }>(
        ch,
        `SELECT DISTINCT token, toUnixTimestamp64Micro(visible_at) AS us, block_number AS block FROM launch_feed
         WHERE chain_id = {chain:UInt32} AND block_number <= {served:UInt64} ORDER BY us DESC, token DESC LIMIT {limit:UInt32}`,
        { chain: chainId, served, limit: feedItems },
      )
      window.reset(rowsOf(rows).reverse(), rows.length < feedItems)
    }
    // A rollback (told by the served batches' markers in the sync before this) deleted launches
    // from launch_feed: the window is read again. Otherwise only what follows it is read.
    if (windowServed === null || windowStale) {
      await reload()
      windowStale = false
    } else {
      const rows = await queryRows<{ token: string; us: string; block: string }>(
        ch,
        `SELECT DISTINCT token, toUnixTimestamp64Micro(visible_at) AS us, block_number AS block FROM launch_feed
         WHERE chain_id = {chain:UInt32} AND visible_at > fromUnixTimestamp64Micro({after:Int64}) AND block_number <= {served:UInt64}
         ORDER BY us, token LIMIT {limit:UInt32}`,
        { chain: chainId, served, after: window.lastUs() ?? 0, limit: feedItems + 1 },
      )
      if (rows.length > feedItems) await reload()
      else window.append(rowsOf(rows))
    }
    windowServed = served
    launchesPending = false
  }

  // Long polls wait for the window to grow: the batch that advances the watermark wakes them.
  watermarks.onAdvance((chain) => {
    if (chain === chainId && window.waiting() > 0) void ready().catch((err) => deps.logger.warn({ err: (err as Error).message }, 'feed window refresh failed'))
  })

  let syncedAt = 0
  function startSync(target: number): Promise<void> {
    if (!syncing) {
      syncedAt = Date.now()
      syncing = (target >= synced.seq ? syncTo(target) : Promise.resolve()).then(refreshWindow).finally(() => {
        syncing = undefined
      })
    }
    return syncing
  }

  /**
   * Sync when the watermark moved (the request waits: it answers at the new batch); between
   * batches, at most every LATE_SYNC_MS, a sync in the background picks up what other roles named
   * (a stored scan) without holding any request.
   */
  async function ready(): Promise<void> {
    if (readyNow()) return
    const target = watermarks.seq(chainId)
    if (applyPush(target)) return
    // A sync already running may have started for an older target (a background one): wait for
    // it, then sync on, so a request never answers below the watermark it saw.
    while (target > synced.seq || synced.block !== windowServed) await startSync(target)
    syncLate(target)
  }

  /** Whether kept keys answer at the watermark now (what `ready` waits for), without a promise. */
  function readyNow(): boolean {
    const target = watermarks.seq(chainId)
    if (target > synced.seq || synced.block !== windowServed) return false
    syncLate(target)
    return true
  }

  function syncLate(target: number): void {
    if (answersRequests && synced.seq > 0 && Date.now() - syncedAt >= LATE_SYNC_MS) {
      startSync(target).catch((err) => deps.logger.warn({ err: (err as Error).message }, 'serving sync failed'))
    }
  }

  // A cached row becomes a record once per chain time (dead depends on it), not once per request.
  const records = new WeakMap<TokenStateRow, { chainTime: number; record: TokenRecord | undefined }>()
  function recordOf(r: TokenStateRow): TokenRecord | undefined {
    const memo = records.get(r)
    if (memo && memo.chainTime === synced.chainTime) return memo.record
    const record = tokenRecordOf(r, synced.chainTime)
    records.set(r, { chainTime: synced.chainTime, record })
    return record
  }
  const deployerRecords = new WeakMap<DeployerStateRow, DeployerRecord | undefined>()
  function deployerOf(r: DeployerStateRow): DeployerRecord | undefined {
    if (!deployerRecords.has(r)) deployerRecords.set(r, deployerRecordOfRow(r))
    return deployerRecords.get(r)
  }

  const loadTokenRows = throughShared('token', async (missing: string[]) => new Map((await latestTokenRows(ch, chainId, missing)).map((r) => [r.token, r])))
  const loadDeployerRows = throughShared('deployer', async (missing: string[]) => new Map((await latestDeployerRows(ch, chainId, missing)).map((r) => [r.deployer, r])))

  /** One key, the hot path of /token and /verdict: no per-call maps. */
  async function oneRow<R>(cache: KeyedCache<R | null>, load: (keys: string[]) => Promise<Map<string, R | null>>, key: string): Promise<R | null> {
    await ready()
    return cache.get(key, async () => (await load([key])).get(key) ?? null)
  }

  async function tokensByKey(keys: string[]): Promise<Map<string, TokenRecord>> {
    await ready()
    const rows = await tokenRows.getMany(keys, loadTokenRows, null)
    const out = new Map<string, TokenRecord>()
    for (const [k, r] of rows) {
      const t = r ? recordOf(r) : undefined
      if (t) out.set(k, t)
    }
    return out
  }

  /** Candidate keys from a projection, then the current records of those keys that still match. */
  async function candidates(sql: string, params: Record<string, unknown>, still: (t: TokenRecord) => boolean): Promise<TokenRecord[]> {
    await ready()
    const keys = (await queryRows<{ token: string }>(ch, sql, { chain: chainId, ...params })).map((r) => r.token)
    const records = await tokensByKey(keys)
    return keys.map((k) => records.get(k)).filter((t): t is TokenRecord => t !== undefined && still(t))
  }

  /**
   * A page of launch_feed (a range read on its visible_at key). Only launches of served blocks:
   * launch_feed fills when a batch is inserted, before its tokens' state is refreshed, and a
   * cursor must never pass a launch whose record is not there yet.
   */
  async function feedPage(fromWindow: () => FeedItemRef[] | null, sql: string, params: Record<string, unknown>): Promise<FeedPage> {
    await ready()
    const served = synced.block ?? -1
    if (served < 0) return { tokens: [], firstUs: null, lastUs: null }
    const held = feedItems > 0 && windowServed === served ? fromWindow() : null
    const rows = held ?? (await queryRows<{ token: string; us: string }>(ch, sql, { chain: chainId, served, ...params })).map((r) => ({ key: r.token, us: Number(r.us) }))
    const records = await tokensByKey(rows.map((r) => r.key))
    return {
      tokens: rows.map((r) => records.get(r.key)).filter((t): t is TokenRecord => t?.launch != null),
      firstUs: rows[0]?.us ?? null,
      lastUs: rows.length ? rows[rows.length - 1]!.us : null,
    }
  }

  // The leaderboard's top, kept per size asked (at most the endpoint's few sizes): read whole
  // once, then kept from the deployers each sync names, read through the kept rows by key.
  const tops = new Map<number, TopDeployers>()
  function topFor(limit: number): TopDeployers {
    let top = tops.get(limit)
    if (!top) {
      top = createTopDeployers(
        {
          top: (k) =>
            queryRows<DeployerStateRow>(
              ch,
              `SELECT ${DEPLOYER_STATE_COLUMNS} FROM deployer_state FINAL WHERE chain_id = {chain:UInt32} AND launched > 0
               ORDER BY score DESC, real DESC, launched DESC, deployer LIMIT {limit:UInt32}`,
              { chain: chainId, limit: k },
            ),
          some: (deployers) => deployerRows.getMany(deployers, loadDeployerRows, null),
        },
        limit,
      )
      tops.set(limit, top)
    }
    return top
  }
  listeners.add((changes) => {
    for (const top of tops.values()) {
      if (changes === null) top.reset()
      else top.changed(changes.filter((c) => c.kind === 'deployer').map((c) => c.key))
    }
  })

  function oncePerBatch<T>(key: string, load: () => Promise<T>): Promise<T> {
    return ready().then(() => perBatch.get(key, load) as Promise<T>)
  }

  const serving: TokenServing = {
    chainId,
    measuredThrough: () => synced.block ?? watermarks.get(chainId),
    keptThrough: () => (readyNow() ? serving.measuredThrough() : undefined),
    chainTime: () => synced.chainTime,
    async token(address) {
      const r = await oneRow(tokenRows, loadTokenRows, address)
      return r ? recordOf(r) : undefined
    },
    keptToken(address) {
      if (!readyNow()) return undefined
      const row = tokenRows.kept(address)
      if (!row) return undefined
      const token = row.value ? recordOf(row.value) : undefined
      if (!token?.deployer) return { token, deployer: undefined }
      // A deployer not kept (dropped apart from its token): `deployer` loads it, and the token's
      // lookup is then counted twice.
      const d = deployerRows.kept(token.deployer)
      return d && { token, deployer: d.value ? deployerOf(d.value) : undefined }
    },
    tokens: tokensByKey,
    async deployer(address) {
      const r = await oneRow(deployerRows, loadDeployerRows, address)
      return r ? deployerOf(r) : undefined
    },
    async deployers(addresses) {
      await ready()
      const rows = await deployerRows.getMany(addresses, loadDeployerRows, null)
      const out = new Map<string, DeployerRecord>()
      for (const [k, r] of rows) {
        const d = r ? deployerOf(r) : undefined
        if (d) out.set(k, d)
      }
      return out
    },
    async deployerHistory(address) {
      const d = await serving.deployer(address)
      if (!d) return undefined
      // The deployer's tokens through the by_deployer projection, newest launch first.
      const rows = await histories.get(address, () =>
        queryRows<TokenStateRow>(
          ch,
          `SELECT * FROM (SELECT ${TOKEN_STATE_COLUMNS} FROM token_state WHERE chain_id = {chain:UInt32} AND deployer = {deployer:String}
                          ORDER BY token, version DESC LIMIT 1 BY token)
           WHERE present AND launched ORDER BY launch_block DESC, token LIMIT {limit:UInt32}`,
          { chain: chainId, deployer: address, limit: LAUNCH_HISTORY_LIMIT },
        ),
      )
      const launches = rows.map((r) => tokenRecordOf(r, synced.chainTime)).filter((t): t is TokenRecord => t?.deployer === address)
      return { ...d, launches }
    },
    feedAfter: (afterUs, throughUs, limit) =>
      feedPage(
        () => (window.coversAfter(afterUs) ? window.after(afterUs, throughUs, limit) : null),
        `SELECT DISTINCT token, toUnixTimestamp64Micro(visible_at) AS us FROM launch_feed
         WHERE chain_id = {chain:UInt32} AND visible_at > fromUnixTimestamp64Micro({after:Int64}) AND visible_at <= fromUnixTimestamp64Micro({through:Int64})
           AND block_number <= {served:UInt64}
         ORDER BY us, token LIMIT {limit:UInt32}`,
        { after: afterUs, through: throughUs, limit },
      ),
    feedBefore: (throughUs, limit, beforeUs) =>
      feedPage(
        () => (window.coversBefore(throughUs, limit, beforeUs) ? window.before(throughUs, limit, beforeUs) : null),
        `SELECT DISTINCT token, toUnixTimestamp64Micro(visible_at) AS us FROM launch_feed
         WHERE chain_id = {chain:UInt32} AND visible_at <= fromUnixTimestamp64Micro({through:Int64})
           AND visible_at < fromUnixTimestamp64Micro({before:Int64}) AND block_number <= {served:UInt64}
         ORDER BY us DESC, token DESC LIMIT {limit:UInt32}`,
        { through: throughUs, before: beforeUs ?? Number.MAX_SAFE_INTEGER, limit },
      ),
    bySymbol(symbol, opts = {}) {
      const s = symbol.toLowerCase()
      const cond = opts.prefix ? "symbol_lower LIKE {pattern:String}" : 'symbol_lower = {s:String}'
      return candidates(
        `SELECT DISTINCT token FROM token_state WHERE chain_id = {chain:UInt32} AND ${cond} LIMIT {limit:UInt32}`,
        { s, pattern: `${escapeLike(s)}%`, limit: opts.limit ?? 1000 },
        (t) => (opts.prefix ? t.symbol.toLowerCase().startsWith(s) : t.symbol.toLowerCase() === s),
      )
    },
    byName(text, limit) {
      const s = text.toLowerCase()
      if (s.length < 3) return Promise.resolve([])
      // The ngram index on name_lower skips granules without the text.
      return candidates(
        `SELECT DISTINCT token FROM token_state WHERE chain_id = {chain:UInt32} AND name_lower LIKE {pattern:String} LIMIT {limit:UInt32}`,
        { pattern: `%${escapeLike(s)}%`, limit },
        (t) => t.name.toLowerCase().includes(s),
      )
    },
    byPrice(ranges, limit) {
      if (ranges.length === 0) return Promise.resolve([])
      const cond = ranges.map((_, i) => `(price_weth BETWEEN {lo${i}:Float64} AND {hi${i}:Float64})`).join(' OR ')
      const params: Record<string, unknown> = { limit }
      ranges.forEach(([lo, hi], i) => Object.assign(params, { [`lo${i}`]: lo, [`hi${i}`]: hi }))
      return candidates(
        `SELECT DISTINCT token FROM token_state WHERE chain_id = {chain:UInt32} AND price_weth > 0 AND (${cond}) LIMIT {limit:UInt32}`,
        params,
        (t) => t.quote !== null,
      )
    },
    leaderboard(limit) {
      return oncePerBatch(`leaderboard:${limit}`, async () => {
        // The count of deployers with a launch is the totals' (one read per batch for both endpoints).
        const [rows, totals] = await Promise.all([topFor(limit).list(limit), serving.totals()])
        return { deployers: rows.map(deployerOf).filter((d): d is DeployerRecord => d !== undefined), total: totals.deployers }
      })
    },
    totals() {
      return oncePerBatch('totals', async () => {
        // Aliases differ from the column names: an alias named like its column would nest aggregates.
        const [r] = await queryRows<{ n: string; launched_sum: string; real_sum: string; dead_sum: string }>(
          ch,
          `SELECT count() AS n, sum(launched) AS launched_sum, sum(real) AS real_sum, sum(dead) AS dead_sum
           FROM deployer_state FINAL WHERE chain_id = {chain:UInt32} AND launched > 0`,
          { chain: chainId },
        )
        return { deployers: Number(r?.n ?? 0), launched: Number(r?.launched_sum ?? 0), real: Number(r?.real_sum ?? 0), dead: Number(r?.dead_sum ?? 0) }
      })
    },
    async waitForLaunch(afterUs, ms, signal) {
      await ready()
      return window.waitBeyond(afterUs, ms, signal)
    },
    sync: ready,
    onChanges(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    cachedEntries: () => tokenRows.size() + deployerRows.size() + histories.size() + window.size(),
    pushesApplied: () => pushes,
  }
  return serving
}

declare module '../../core/endpoint/deps.ts' {
  interface ApiDeps {
    /** Chain-4663 token and deployer records, read by key and cached until the pipeline changes them. */
    tokens: TokenServing
  }
}
