import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { Store } from '../../core/store/types.ts'

/**
 * A key's watchlist in ClickHouse (`watchlists`, migration 011): durable in both modes and seen
 * by every API process on the same ClickHouse. Adds and removals are idempotent: each writes the
 * token's latest state.
 */

// Rows written in one millisecond still order (an add and its undo): a per-process counter breaks the tie.
let seq = 0
const version = () => Date.now() * 1000 + (seq++ % 1000)

/** The watched tokens of a key, sorted. The latest row per token decides, merged or not. */
export async function watchedTokens(ch: ClickHouseClient, keyHash: string): Promise<string[]> {
  const rows = await queryRows<{ token: string }>(
    ch,
    `SELECT token FROM (SELECT token, argMax(watched, version) AS w FROM watchlists WHERE key_hash = {h:String} GROUP BY token)
     WHERE w = 1 ORDER BY token`,
    { h: keyHash },
  )
  return rows.map((r) => r.token)
}

export async function writeWatched(ch: ClickHouseClient, keyHash: string, tokens: string[], watched: boolean): Promise<void> {
  if (!tokens.length) return
  const now = Date.now()
  await ch.insert({
    table: 'watchlists',
    values: tokens.map((token) => ({ key_hash: keyHash, token, watched: watched ? 1 : 0, updated_at: now, version: version() })),
    format: 'JSONEachRow',
    // Re-adding a token after removing it repeats an earlier row's content: it must still count.
    clickhouse_settings: { insert_deduplicate: 0 },
  })
}

/** Keys whose store-held watchlist (before migration 011) this process has already moved. */
const moved = new Set<string>()

/**
 * Watchlists used to live in the store as `watchlist:<keyHash>` sets. The first time a process
 * serves a key, whatever is left there moves into ClickHouse (tokens without a row of their own)
 * and leaves the store, so an upgrade loses no watched token.
 */
export async function moveStoreWatchlist(ch: ClickHouseClient, store: Store, keyHash: string): Promise<void> {
  if (moved.has(keyHash)) return
  const legacyKey = `watchlist:${keyHash}`
  const legacy = await store.smembers(legacyKey)
  if (legacy.length) {
    const known = await queryRows<{ token: string }>(ch, 'SELECT DISTINCT token FROM watchlists WHERE key_hash = {h:String}', { h: keyHash })
    const seen = new Set(known.map((r) => r.token))
    await writeWatched(ch, keyHash, legacy.filter((t) => !seen.has(t)).sort(), true)
    await store.del(legacyKey)
  }
  moved.add(keyHash)
}
