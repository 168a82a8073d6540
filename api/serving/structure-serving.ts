import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { structureReport, type StructureAnswer } from '../../core/structure/structure-report.ts'
import type { ServingCache } from './serving-cache.ts'
import type { Watermarks } from './watermarks.ts'

/**
 * /structure/{token} answers, cached per (token, window end) and valid while the chain's batch
 * watermark stands: a new served batch (or a reorg) invalidates them, so each is computed at
 * most once per batch, from keyed reads only (core/structure/structure-report.ts).
 */
export function structureAnswer(
  deps: { ch: ClickHouseClient; cache: ServingCache; watermarks: Watermarks },
  chainId: number,
  token: string,
  toBlock: number,
): Promise<StructureAnswer> {
  return deps.cache.get(`structure:${chainId}:${token}:${toBlock}`, deps.watermarks.version(chainId), () => structureReport(deps.ch, chainId, token, toBlock))
}
