import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { fifoOpen } from './fifo-sql.ts'
import { medianHoldSql } from './hold-median.ts'
import { createServingCache } from '../../core/serving/serving-cache.ts'
import { backgroundRunner } from '../../core/serving/background.ts'

/** One wallet's receipt on the Solana venue, amounts exact in micro-USD. */
export interface SolanaReceipt {
  /** In the venue's universe. */
  found: boolean
  trades: number
  /** Realized PnL over every sell: USD received − FIFO-matched cost. */
  realizedMicroUsd: bigint
  sells: number
  /** Sells whose realized PnL is above zero. */
  winningSells: number
  /** Sells with quantity not covered by lots (that part had zero cost). */
  unmatchedSells: number
  /** Cost of the lots still open. */
  openCostMicroUsd: bigint
  /** Median hold of the lots (and lot parts) closed by sells, seconds; null without one. */
  medianHoldSeconds: number | null
}

export interface SolanaServing {
  receipt(wallet: string): Promise<SolanaReceipt>
  /** Block time (unix seconds) the venue's trades are ingested through; null before any. */
  measuredThrough(): Promise<number | null>
  /** In-process push: the pipeline inserted trades (answers computed before are stale). */
  advanced(rows: number): void
}

/** The ingest progress is read again at most this often (one row, by its key). */
const SYNC_EVERY_MS = 1_000

/**
 * Solana receipts as the endpoint reads them: one keyed read per wallet (solana_universe and
 * the wallet's legs, both ordered by wallet), cached per wallet. A cached receipt is valid while
 * the venue's ingest progress (solana_progress: newest block time and slot, plus trades pushed
 * in-process) is what it was computed at; the progress row is read at most once a second, in
 * the background (no request but the first waits on it).
 */
export function createSolanaServing(deps: { ch: ClickHouseClient; maxEntries: number }): SolanaServing {
  const { ch } = deps
  const cache = createServingCache({ maxEntries: deps.maxEntries })
  let progress: { through: number | null; version: string; at: number } = { through: null, version: '', at: 0 }
  let pushed = 0
  let syncing: Promise<void> | undefined

  async function sync(): Promise<void> {
    const [r] = await queryRows<{ through: number; slot: string }>(
      ch,
      "SELECT toUnixTimestamp(max(through)) AS through, toString(max(slot)) AS slot FROM solana_progress WHERE venue = 'solana'",
    )
    const through = r && Number(r.through) > 0 ? Number(r.through) : null
    progress = { through, version: `${through ?? 0}:${r?.slot ?? 0}`, at: Date.now() }
  }

  const startSync = () => (syncing ??= sync().finally(() => (syncing = undefined)))
  const inBackground = backgroundRunner('solana-progress-sync')

  /** The progress as last read: the first request waits for it, later ones refresh it in the background. */
  async function current(): Promise<{ through: number | null; version: string }> {
    if (progress.at === 0) await startSync()
    else if (!syncing && Date.now() - progress.at >= SYNC_EVERY_MS) inBackground(() => void startSync().catch(() => {}))
    return { through: progress.through, version: `${progress.version}:${pushed}` }
  }

  return {
    async receipt(wallet) {
      const { version } = await current()
      return cache.get(`solana-receipt:${wallet}`, version, () => loadReceipt(ch, wallet))
    },
    async measuredThrough() {
      return (await current()).through
    },
    advanced(rows) {
      if (rows > 0) pushed++
    },
  }
}

/**
 * One wallet's receipt: its membership and its FIFO states (the newest per mint, kept by the
 * pipeline) summed in one query; its closed lots' holds counted per hold (solana_hold_counts) in
 * another. Keyed reads by wallet.
 */
const RECEIPT_SQL = `
SELECT (SELECT count() FROM solana_universe WHERE wallet = {wallet:String}) AS member,
       toString(sum(legs)) AS trades,
       toString(sum(state.realized)) AS realized,
       toString(sum(state.sells)) AS sells,
       toString(sum(state.winning_sells)) AS winning,
       toString(sum(unmatched_sells)) AS unmatched,
       toString(sum(${fifoOpen('state').cost})) AS open_cost
FROM (SELECT legs, state, unmatched_sells FROM solana_fifo_state WHERE wallet = {wallet:String} ORDER BY mint, legs DESC LIMIT 1 BY mint)`

const HOLDS_SQL = `SELECT ${medianHoldSql('hold_seconds', 'lots')} AS median FROM solana_hold_counts WHERE wallet = {wallet:String}`

async function loadReceipt(ch: ClickHouseClient, wallet: string): Promise<SolanaReceipt> {
  const [[r], [holds]] = await Promise.all([
    queryRows<{ member: string; trades: string; realized: string; sells: string; winning: string; unmatched: string; open_cost: string }>(ch, RECEIPT_SQL, { wallet }),
    queryRows<{ median: number | null }>(ch, HOLDS_SQL, { wallet }),
  ])
  return {
    found: Number(r?.member ?? 0) > 0,
    trades: Number(r?.trades ?? 0),
    realizedMicroUsd: BigInt(r?.realized ?? 0),
    sells: Number(r?.sells ?? 0),
    winningSells: Number(r?.winning ?? 0),
    unmatchedSells: Number(r?.unmatched ?? 0),
    openCostMicroUsd: BigInt(r?.open_cost ?? 0),
    medianHoldSeconds: holds?.median === null || holds?.median === undefined ? null : Number(holds.median),
  }
}

declare module '../../core/endpoint/deps.ts' {
  interface ApiDeps {
    /** Solana venue receipts, read by wallet and cached per wallet until the venue's ingest moves. */
    solana: SolanaServing
  }
}
