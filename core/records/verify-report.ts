import type { ClickHouseClient } from '../clickhouse.ts'

/**
 * One audited view (issue 24): the rows it keeps and the same figures recomputed from the raw
 * rows they derive from, each as (key String, v String), compared exactly by key. A key on one
 * side only is drift too (a row lost, or one left behind). `{chain:UInt32}` names the chain of a
 * per-chain view; `sample(expr)` restricts either side to the keys in the sample, inside the
 * query, so a sampled run recomputes only what it compares.
 */
/**
 * The kept views the audit checks, by name: what `POST /admin/verify` and `svc verify --view`
 * accept. pipelines/verify/view-checks.ts holds one check per name (a test holds them equal).
 */
export const AUDITED_VIEWS = [
  'fifo_state', 'fifo_sells', 'fifo_hold_counts', 'holder_balances', 'token_state', 'deployer_state', 'chain_totals', 'chain_blocks',
  'mention_hourly', 'mention_minute', 'caller_stats', 'solana_fifo_state', 'arc_token_activity', 'arc_activity_by_block', 'arc_venue_stats',
] as const

export interface ViewCheck {
  view: (typeof AUDITED_VIEWS)[number]
  /** What the view is recomputed from, in words (the report and docs/operators.md say it). */
  against: string
  /** Whether the view has a chain_id: it is then checked once per chain with blocks. */
  perChain: boolean
  /** Of those chains, the ones whose batches keep the view (every one when absent). */
  keptFor?(chainId: number): boolean
  /** The kept rows: SQL answering (key String, v String). */
  kept(sample: Sampler): string
  /** The same from raw rows: SQL answering (key String, v String). */
  fresh(sample: Sampler): string
  /** Rebuild the drifted keys from raw rows; absent where no rebuild from raw rows exists here. */
  repair?(ch: ClickHouseClient, chainId: number | null, keys: string[]): Promise<void>
}

/** The chains a check runs for, of the chains with blocks: null alone for a view without a chain_id. */
export function chainsChecked(check: ViewCheck, chains: number[]): Array<number | null> {
  return check.perChain ? chains.filter((c) => check.keptFor?.(c) ?? true) : [null]
}

/** `sample(keyExpr)`: a SQL condition true for the keys in the sample (all keys at sample 1). */
export type Sampler = (keyExpr: string) => string

/** A key whose kept value differs from the recomputed one ('missing' on the side without a row). */
export interface Drift {
  key: string
  kept: string
  fresh: string
}

export interface ViewReport {
  view: (typeof AUDITED_VIEWS)[number]
  chain: number | null
  against: string
  checked: number
  drifted: number
  /** The first drifted keys, in key order, with both values. */
  first: Drift[]
  /** Keys rebuilt by a repair (absent without one). */
  repaired?: number
  /** Why a repair was not made (no rebuild from raw rows exists for the view). */
  repair_note?: string
  seconds: number
}

export interface VerifyReport {
  /** Fraction of keys checked (1: all keys). */
  sample: number
  seed: number
  views: ViewReport[]
  /** Drifted keys over all views. */
  drifted: number
  seconds: number
}

export interface VerifyOptions {
  /** Fraction of keys to check, in (0, 1]; 1 (default) checks every key. */
  sample?: number
  /** Picks the sample (the same seed picks the same keys). */
  seed?: number
  /** Only these views (default: every view). */
  views?: string[]
  /** Drifted keys shown per view (default 5). */
  first?: number
  /** Rebuild drifted keys from raw rows, then check them again. */
  repair?: boolean
  /** ClickHouse threads per query: the scheduled audit runs on one. */
  maxThreads?: number
}
