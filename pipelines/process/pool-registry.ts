import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

export interface PoolInfo {
  token0: string
  token1: string
  protocol: string
}

/** Which contracts a chain processor follows (lowercase addresses). */
export interface FollowedContracts {
  weth: Set<string>
  v2Factories: Set<string>
  v3Factories: Set<string>
  v4PoolManagers: Set<string>
  /**
   * Launchpads and factories launches are attributed to (chain 5042; pipelines/process/arc-rows.ts).
   * Absent on a chain without attribution (4663).
   */
  attribution?: { pads: Set<string>; factories: Set<string> }
}

/**
 * Pools created by followed factories, kept in memory so that swaps can be attributed to a
 * token and a WETH side while decoding. Loaded from `pools` at start, extended as
 * PairCreated logs are processed (they precede the pool's swaps in the stream).
 */
export interface PoolRegistry {
  get(pool: string): PoolInfo | undefined
  add(pool: string, info: PoolInfo): void
  size(): number
}

export async function loadPoolRegistry(ch: ClickHouseClient, chainId: number): Promise<PoolRegistry> {
  const pools = new Map<string, PoolInfo>()
  const rows = await queryRows<{ pool: string; token0: string; token1: string; protocol: string }>(
    ch,
    'SELECT pool, token0, token1, protocol FROM pools FINAL WHERE chain_id = {chain:UInt32}',
    { chain: chainId },
  )
  for (const r of rows) pools.set(r.pool, { token0: r.token0, token1: r.token1, protocol: r.protocol })
  return {
    get: (pool) => pools.get(pool),
    add: (pool, info) => void pools.set(pool, info),
    size: () => pools.size,
  }
}
