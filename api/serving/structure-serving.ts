import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { structureReport, type StructureAnswer } from '../../core/structure/structure-report.ts'
import { createServingCache, type ServingCache } from './serving-cache.ts'
import type { Watermarks } from './watermarks.ts'

/**
 * Answers kept per process (one cache per watermark source): an answer lists up to 1,050
 * wallets (a few hundred kB), so they get a small cache of their own instead of entries in the
 * shared one, which holds tens of thousands of small answers.
 */
export const STRUCTURE_CACHE_ENTRIES = 256
const caches = new WeakMap<Watermarks, ServingCache>()

/**
 * /structure/{token} answers, cached per (token, window end) and valid while the chain's batch
 * watermark stands: a new served batch (or a reorg) invalidates them, so each is computed at
 * most once per batch, from keyed reads only (core/structure/structure-report.ts).
 */
export function structureAnswer(deps: { ch: ClickHouseClient; watermarks: Watermarks }, chainId: number, token: string, toBlock: number): Promise<StructureAnswer> {
  let cache = caches.get(deps.watermarks)
  if (!cache) caches.set(deps.watermarks, (cache = createServingCache({ maxEntries: STRUCTURE_CACHE_ENTRIES })))
  return cache.get(`structure:${chainId}:${token}:${toBlock}`, deps.watermarks.version(chainId), () => structureReport(deps.ch, chainId, token, toBlock))
}
