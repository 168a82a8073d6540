import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { lastServedBatch, servingChangesBetween } from '../../core/records/serving-changes.ts'
import { rosterWalletsTradingToken } from './roster-trading.ts'
import {
  claimWindow,
  latestLeaderboardId,
  readEthUsdRange,
  readHoldsOf,
  readLastSwaps,
  readRoster,
  readSellWindows,
  readWalletStates,
  type Holds,
  type LastSwap,
  type Roster,
  type WalletTokenState,
} from './wallet-receipt.ts'
import { notFoundReceipt, receiptView, type WalletReceiptData } from './wallet-receipt-view.ts'
import { createKeyedCache } from '../../core/serving/keyed-cache.ts'
import { createRefreshAhead, REFRESH_BATCH_KEYS } from '../../core/serving/refresh-ahead.ts'
import { createBoundedCache } from '../../core/serving/bounded-cache.ts'
import { renderOnce } from '../../core/serving/rendered-json.ts'
import { KeptByInputs } from '../../core/serving/kept-by-inputs.ts'
import type { Watermarks } from '../../core/serving/watermarks.ts'

/**
 * Wallet receipts of the tracked roster as /wallet-receipt serves them, cached per wallet and
 * dropped key by key, and built from two parts kept apart: what moves only with the wallet (its
 * token states, holds and 30-day sells), dropped when a batch names the wallet (serving_changes
 * kind 'wallet'), and each token's latest swap (its last-close price), dropped when a batch names
 * the token. A batch that trades the tokens a wallet holds, not the wallet, rebuilds its receipt
 * from the kept states and the moved prices (one read of those tokens' swaps), not from a read of
 * every state it has: the roster's wallets hold most traded tokens, so nearly every batch moved a
 * price in most receipts. Everything goes when a new leaderboard becomes the roster. Outside the
 * roster the answer is found:false without a read of the wallet.
 */
export interface ReceiptServing {
  readonly chainId: number
  receipt(wallet: string): Promise<WalletReceiptData>
  /**
   * The wallet's receipt when memory holds it at the served watermark, without a promise (the
   * kept answer of /wallet-receipt, api/kept-lane.ts), else undefined: a sync pending, no roster
   * yet, or the receipt not built (or being built again after a batch changed the wallet).
   */
  keptReceipt(wallet: string): WalletReceiptData | undefined
  /** How many roster wallets traded `token` (a count, never who), and the roster's size. */
  rosterTraders(token: string): Promise<{ traded: number; roster: number }>
  measuredThrough(): number | null
  cachedEntries(): number
}

/** More changes than this since the last sync: drop every cached receipt instead. */
const MAX_CHANGES_PER_SYNC = 20_000
/** How often the latest leaderboard is looked up when no batch arrives (ms). */
const ROSTER_CHECK_MS = 1_000
/** A receipt asked within this long is built again as soon as a batch drops it. */
export const RECEIPT_REFRESH_AHEAD_MS = 120_000

interface Cached {
  data: WalletReceiptData
  /** Every token of the wallet: each one's last-close price is in the answer. */
  tokens: string[]
}

/** What a receipt is built from that moves only with its wallet (and the roster's claim window). */
interface WalletParts {
  states: WalletTokenState[]
  holds: Holds
  sells: { wei: bigint; sells: number }
}

/** Never given: readParts answers every wallet it is asked. */
const NO_PARTS: WalletParts = { states: [], holds: { all: { median: null, lots: 0 }, byToken: new Map() }, sells: { wei: 0n, sells: 0 } }

export function createReceiptServing(deps: { ch: ClickHouseClient; watermarks: Watermarks; maxEntries: number }, chainId = 4663): ReceiptServing {
  const { ch, watermarks } = deps
  const receipts = createKeyedCache<Cached>(deps.maxEntries, 'wallet_receipts')
  const parts = createKeyedCache<WalletParts>(deps.maxEntries, 'wallet_receipt_parts')
  const lastSwaps = createKeyedCache<LastSwap | null>(deps.maxEntries, 'receipt_last_swaps')
  /** By token, the wallets whose kept receipt shows its price. */
  const holders = new Map<string, Set<string>>()
  /** Wallets whose receipt is being built: a price that moves meanwhile may be missing from it. */
  const building = new Map<string, number>()
  const traders = createKeyedCache<{ traded: number; roster: number }>(deps.maxEntries, 'roster_traders')
  /** The ETH/USD range of a claim window: the same for every wallet of a leaderboard. */
  const ethRanges = createKeyedCache<Awaited<ReturnType<typeof readEthUsdRange>>>(16)
  let synced = { seq: 0, block: null as number | null }
  let roster: { value: Roster; checkedAt: number } | undefined
  let syncing: Promise<void> | undefined

  // The receipt last given per wallet, and, for a wallet a batch dropped, that receipt given (with
  // the block it states) while its new one is built; all go when the roster changes or a reorg
  // removes blocks.
  const lastGiven = createBoundedCache<WalletReceiptData>(deps.maxEntries, Number.POSITIVE_INFINITY)
  const previous = createBoundedCache<WalletReceiptData>(deps.maxEntries, Number.POSITIVE_INFINITY)
  /** The answer per wallet, made from its built receipt and the watermark it is given at. */
  const answers = new KeptByInputs<WalletReceiptData>(deps.maxEntries)

  function clear(): void {
    receipts.clear()
    parts.clear()
    lastSwaps.clear()
    holders.clear()
    traders.clear()
    lastGiven.clear()
    previous.clear()
  }

  const ahead = createRefreshAhead({
    recentMs: RECEIPT_REFRESH_AHEAD_MS,
    concurrency: 2,
    maxKeys: deps.maxEntries,
    batchKeys: REFRESH_BATCH_KEYS,
    // The receipts a batch dropped, built together: each part read once for all their wallets.
    load: async (wallets) => {
      const r = await ready()
      const missing = wallets.filter((w) => r.claims.has(w) && !receipts.has(w))
      if (missing.length === 0) return
      const built = buildMany(missing, r)
      await Promise.all(missing.map((w) => receipts.get(w, async () => kept(w, (await built).get(w)!))))
    },
  })

  function dropWallet(w: string): void {
    const given = lastGiven.get(w)
    if (given && receipts.has(w)) previous.set(w, given)
    receipts.delete(w)
    ahead.dropped(w)
  }

  async function syncTo(target: number): Promise<void> {
    const changes = synced.seq === 0 ? [] : await servingChangesBetween(ch, chainId, synced.seq, target, MAX_CHANGES_PER_SYNC + 1)
    // Candles keep arriving: a window's range is read again once per batch.
    ethRanges.clear()
    if (synced.seq === 0 || changes.length > MAX_CHANGES_PER_SYNC) {
      clear()
      const b = await lastServedBatch(ch, chainId)
      synced = b && b.seq >= target ? { seq: b.seq, block: b.watermark } : { seq: target, block: watermarks.get(chainId) }
      return
    }
    let pricesMoved = false
    for (const c of changes) {
      if (c.kind === 'wallet') {
        parts.delete(c.key)
        dropWallet(c.key)
      } else if (c.kind === 'token') {
        traders.delete(c.key)
        lastSwaps.delete(c.key)
        for (const w of holders.get(c.key) ?? []) dropWallet(w)
        holders.delete(c.key)
        pricesMoved = true
      }
    }
    // A receipt being built may have read a price before it moved, and names no token yet.
    if (pricesMoved) for (const w of building.keys()) dropWallet(w)
    const marker = [...changes].reverse().find((c) => c.kind === 'batch')
    // A served block lower than before is a reorg: no receipt of the removed blocks is given again.
    if (marker && synced.block !== null && marker.watermark < synced.block) {
      lastGiven.clear()
      previous.clear()
    }
    synced = marker ? { seq: marker.seq, block: marker.watermark } : { ...synced, seq: target }
  }

  let rosterCheck: Promise<Roster> | undefined
  /** The latest leaderboard's roster, read again only when a new leaderboard is the latest (one lookup at a time). */
  function checkRoster(): Promise<Roster> {
    rosterCheck ??= (async () => {
      const now = Date.now()
      const id = await latestLeaderboardId(ch)
      if (roster && roster.value.id === id) {
        roster.checkedAt = now
        return roster.value
      }
      const value = await readRoster(ch, id)
      if (roster) clear()
      roster = { value, checkedAt: now }
      return value
    })().finally(() => {
      rosterCheck = undefined
    })
    return rosterCheck
  }

  /**
   * The roster, looked up again after each batch and at most once a second otherwise. Once one
   * is known the lookup runs beside the callers, who are answered with the roster it replaces
   * until it lands: under load a caller waiting on that engine read once a second was most of
   * the class's p99.
   */
  async function currentRoster(force: boolean): Promise<Roster> {
    return knownRoster(force) ?? checkRoster()
  }

  /** The roster known, its lookup started again beside the caller when due; undefined before the first. */
  function knownRoster(force: boolean): Roster | undefined {
    if (!roster) return undefined
    if (force || Date.now() - roster.checkedAt >= ROSTER_CHECK_MS) checkRoster().catch(() => {})
    return roster.value
  }

  async function ready(): Promise<Roster> {
    const target = watermarks.seq(chainId)
    const moved = target > synced.seq
    // A sync already running may be for an older target: wait for it, then sync on.
    while (target > synced.seq) {
      syncing ??= syncTo(target).finally(() => {
        syncing = undefined
      })
      await syncing
    }
    return currentRoster(moved)
  }

  /** The wallet parts of roster wallets, each read once for them all. */
  async function readParts(wallets: string[], r: Roster): Promise<Map<string, WalletParts>> {
    const windows = wallets.map((wallet) => ({ wallet, ...claimWindow(r.claims.get(wallet)!) }))
    const [states, holds, sells] = await Promise.all([readWalletStates(ch, chainId, wallets), readHoldsOf(ch, chainId, wallets), readSellWindows(ch, chainId, windows)])
    return new Map(wallets.map((w) => [w, { states: states.get(w)!, holds: holds.get(w)!, sells: sells.get(w)! }]))
  }

  /**
   * The receipts of roster wallets: their wallet parts (kept, else read once for them all), the
   * latest swaps of their tokens (kept, else read once for all the tokens missing) and the
   * ETH/USD range of each claim window.
   */
  async function buildMany(wallets: string[], r: Roster): Promise<Map<string, Cached>> {
    const measuredThrough = synced.block
    for (const w of wallets) building.set(w, (building.get(w) ?? 0) + 1)
    try {
      const windows = wallets.map((wallet) => {
        const claim = r.claims.get(wallet)!
        return { wallet, claim, ...claimWindow(claim) }
      })
      const [own, ethUsd] = await Promise.all([
        parts.getMany(wallets, (missing) => readParts(missing, r), NO_PARTS),
        // One range per claim window: the same for every wallet of a leaderboard.
        Promise.all(windows.map((w) => ethRanges.get(`${w.from}/${w.to}`, () => readEthUsdRange(ch, w.from, w.to)))),
      ])
      const tokens = new Set<string>()
      for (const p of own.values()) for (const s of p.states) tokens.add(s.token)
      const swaps = await lastSwaps.getMany([...tokens], (missing) => readLastSwaps(ch, chainId, missing), null)
      const out = new Map<string, Cached>()
      windows.forEach(({ wallet, claim }, i) => {
        const p = own.get(wallet)!
        const data = receiptView(wallet, measuredThrough, {
          positions: p.states.map((s) => ({ ...s, lastSwap: swaps.get(s.token) ?? null })),
          holds: p.holds,
          sellsWithUnmatched: p.states.reduce((n, s) => n + s.unmatchedSells, 0),
          claim,
          measured30d: p.sells,
          ethUsd30d: ethUsd[i]!,
        })
        out.set(wallet, { data, tokens: p.states.map((s) => s.token) })
      })
      return out
    } finally {
      for (const w of wallets) {
        const n = building.get(w)! - 1
        if (n > 0) building.set(w, n)
        else building.delete(w)
      }
    }
  }

  /** A built receipt kept: every token it shows a price of names it, so their trades drop it. */
  function kept(wallet: string, c: Cached): Cached {
    for (const t of c.tokens) {
      if (!holders.has(t)) holders.set(t, new Set())
      holders.get(t)!.add(wallet)
    }
    previous.delete(wallet)
    return c
  }

  /**
   * A built receipt as given at the synced watermark: nothing it depends on changed since it was
   * built, so it holds through the new watermark. Made once per receipt and watermark, and written
   * to JSON once (core/serving/rendered-json.ts): a roster wallet's receipt is tens of KB, and
   * stringifying it on every call was most of the call.
   */
  function given(wallet: string, cached: Cached): WalletReceiptData {
    const answer = answers.get(wallet, [cached.data, synced.block], () => renderOnce({ ...cached.data, measured_through_block: synced.block }))
    if (lastGiven.get(wallet) !== answer) lastGiven.set(wallet, answer)
    return answer
  }

  const serving: ReceiptServing = {
    chainId,
    async receipt(address) {
      const wallet = address.toLowerCase()
      ahead.asked(wallet)
      const r = await ready()
      if (!r.claims.has(wallet)) return notFoundReceipt(wallet, synced.block)
      // Kept until its new receipt lands, also while that is built by the refresh ahead (which
      // holds the build in `receipts`): a caller then waited for the whole batch's build.
      const before = previous.get(wallet)
      const building = receipts.get(wallet, async () => kept(wallet, (await buildMany([wallet], r)).get(wallet)!))
      // A batch changed the wallet: its receipt before, stating its block, while this one is built.
      if (before) {
        building.catch(() => {})
        return before
      }
      return given(wallet, await building)
    },
    keptReceipt(address) {
      const wallet = address.toLowerCase()
      if (watermarks.seq(chainId) > synced.seq || syncing) return undefined
      const r = knownRoster(false)
      if (!r) return undefined
      if (!r.claims.has(wallet)) return notFoundReceipt(wallet, synced.block)
      const cached = receipts.kept(wallet)
      if (!cached) return undefined
      ahead.asked(wallet)
      return given(wallet, cached.value)
    },
    async rosterTraders(token) {
      await ready()
      const t = token.toLowerCase()
      return traders.get(t, () => rosterWalletsTradingToken(ch, chainId, t))
    },
    measuredThrough: () => synced.block,
    cachedEntries: () => receipts.size(),
  }
  return serving
}

declare module '../../core/endpoint/deps.ts' {
  interface ApiDeps {
    /** Wallet receipts of the tracked roster, cached per wallet until a batch changes them. */
    receipts: ReceiptServing
  }
}
