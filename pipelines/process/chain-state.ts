import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { ChainRowsState } from './chain-rows.ts'
import { loadPoolRegistry, type FollowedContracts } from './pool-registry.ts'
import { reorgEpoch } from './chain-rollback.ts'
import { loadArcState } from './arc-rows.ts'

/** How many recent block hashes are kept in memory to tell a redelivery from a reorg. */
const RECENT_HASHES = 4096

/**
 * What a chain processor knows between batches, loaded from ClickHouse at start and after a
 * rollback: the watermark (last fully ingested block), recent block hashes, followed pools,
 * launched tokens, the feed clock and the reorg epoch.
 */
export interface ChainState extends ChainRowsState {
  watermark: number
  epoch: number
  hashOf(block: number): string | undefined
  /** Record the blocks of an inserted batch. */
  advance(blocks: Array<{ number: number; hash: string }>): void
}

export async function loadChainState(ch: ClickHouseClient, chainId: number, follow: FollowedContracts): Promise<ChainState> {
  const params = { chain: chainId }
  const hashes = new Map<number, string>()
  const recent = await queryRows<{ number: string; hash: string }>(
    ch,
    `SELECT number, hash FROM chain_blocks WHERE chain_id = {chain:UInt32} ORDER BY number DESC LIMIT ${RECENT_HASHES}`,
    params,
  )
  for (const r of recent) hashes.set(Number(r.number), r.hash)
  const launched = new Set(
    (await queryRows<{ token: string }>(ch, 'SELECT token FROM launches WHERE chain_id = {chain:UInt32}', params)).map((r) => r.token),
  )
  const lastVisible = await queryRows<{ v: string }>(
    ch,
    'SELECT toUnixTimestamp64Micro(max(visible_at)) AS v FROM launches WHERE chain_id = {chain:UInt32}',
    params,
  )
  let visibleClock = Number(lastVisible[0]?.v ?? 0)
  const state: ChainState = {
    watermark: recent[0] ? Number(recent[0].number) : -1,
    epoch: await reorgEpoch(ch, chainId),
    pools: await loadPoolRegistry(ch, chainId),
    follow,
    launched,
    ...(follow.attribution ? { arc: await loadArcState(ch, chainId) } : {}),
    nextVisibleAt() {
      // Strictly increasing even when the wall clock stalls or steps back.
      visibleClock = Math.max(visibleClock + 1, Date.now() * 1000)
      return visibleClock
    },
    hashOf: (block) => hashes.get(block),
    advance(blocks) {
      for (const b of blocks) hashes.set(b.number, b.hash.toLowerCase())
      state.watermark = Math.max(state.watermark, blocks[blocks.length - 1]?.number ?? -1)
      if (hashes.size > RECENT_HASHES * 2) {
        const cutoff = state.watermark - RECENT_HASHES
        for (const n of hashes.keys()) if (n < cutoff) hashes.delete(n)
      }
    },
  }
  return state
}
