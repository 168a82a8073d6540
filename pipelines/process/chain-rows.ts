import { decodeLog } from '../decode/index.ts'
import type { ChainBlock } from '../records/chain-block.ts'
import type { TableRows } from '../sink/clickhouse-sink.ts'
import type { FollowedContracts, PoolInfo, PoolRegistry } from './pool-registry.ts'

/** What attribution needs to know beyond the batch itself. */
export interface ChainRowsState {
  pools: PoolRegistry
  follow: FollowedContracts
  /** Tokens that already have a launch (their first WETH pool). */
  launched: Set<string>
  /** The next feed position: strictly increasing microseconds since epoch. */
  nextVisibleAt(): number
}

/** A log we could not decode although its event is one we know; it goes to the dead letters. */
export interface RejectedLog {
  block: number
  logIndex: number
  reason: string
}

export interface ChainRows {
  tables: TableRows
  rejected: RejectedLog[]
}

type Row = Record<string, unknown>

/** A fresh in-memory state (no pools, no launches yet): for benchmarks and tests. */
export function memoryRowsState(follow: FollowedContracts): ChainRowsState {
  const pools = new Map<string, PoolInfo>()
  let clock = 0
  return {
    pools: { get: (p) => pools.get(p), add: (p, info) => void pools.set(p, info), size: () => pools.size },
    follow,
    launched: new Set(),
    nextVisibleAt: () => (clock = Math.max(clock + 1, Date.now() * 1000)),
  }
}

/**
 * Turn decoded blocks into rows of the raw tables. Swaps are attributed here: the token is the
 * non-WETH side of a followed pool, the trader is the transaction's sender. Blocks come last in
 * the returned order: a block row is the mark that all of its rows are in.
 */
export function chainRows(chainId: number, blocks: ChainBlock[], state: ChainRowsState): ChainRows {
  const { pools, follow } = state
  const blockRows: Row[] = []
  const creations: Row[] = []
  const transfers: Row[] = []
  const poolRows: Row[] = []
  const swaps: Row[] = []
  const reserves: Row[] = []
  const liquidity: Row[] = []
  const launches: Row[] = []
  const rejected: RejectedLog[] = []

  /** A token's first WETH pool is its launch. */
  function launch(token: string, pool: string, protocol: string, block: number, time: number): void {
    if (state.launched.has(token)) return
    state.launched.add(token)
    launches.push({
      chain_id: chainId, token, pool, protocol,
      block_number: block, launched_at: time,
      // DateTime64(6) from a JSON number is read as microseconds.
      visible_at: state.nextVisibleAt(),
    })
  }

  for (const b of blocks) {
    const t = b.timestamp
    blockRows.push({ chain_id: chainId, number: b.number, hash: b.hash.toLowerCase(), parent_hash: b.parentHash.toLowerCase(), timestamp: t, log_count: b.logs.length })
    for (const c of b.creations) {
      const address = c.address.toLowerCase()
      const deployer = c.deployer.toLowerCase()
      creations.push({
        chain_id: chainId, address, deployer, block_number: b.number, tx_index: c.txIndex, tx_hash: c.txHash.toLowerCase(), created_at: t,
        name: c.erc20?.name ?? '', symbol: c.erc20?.symbol ?? '', decimals: c.erc20?.decimals ?? null,
      })
    }
    for (const log of b.logs) {
      if (log.removed) continue
      const ev = decodeLog(log)
      if (!ev) continue
      const at = { chain_id: chainId, block_number: b.number, log_index: log.logIndex }
      switch (ev.type) {
        case 'malformed':
          rejected.push({ block: b.number, logIndex: log.logIndex, reason: `${ev.event}: ${ev.reason}` })
          break
        case 'erc20_transfer':
          transfers.push({ ...at, tx_hash: log.txHash.toLowerCase(), token: ev.address, from_address: ev.from, to_address: ev.to, value: ev.value.toString(), block_time: t })
          break
        case 'v2_pair_created':
          if (!follow.v2Factories.has(ev.address)) break
          pools.add(ev.pair, { token0: ev.token0, token1: ev.token1, protocol: 'v2' })
          poolRows.push({ ...at, pool: ev.pair, protocol: 'v2', factory: ev.address, token0: ev.token0, token1: ev.token1, created_at: t })
          if (follow.weth.has(ev.token0) !== follow.weth.has(ev.token1)) {
            launch(follow.weth.has(ev.token0) ? ev.token1 : ev.token0, ev.pair, 'v2', b.number, t)
          }
          break
        case 'v2_swap': {
          const pool = pools.get(ev.address)
          if (!pool) break
          const wethIs0 = follow.weth.has(pool.token0)
          const wethIs1 = follow.weth.has(pool.token1)
          // Only token/WETH pools carry a WETH volume and a token side.
          if (wethIs0 === wethIs1) break
          swaps.push({
            ...at,
            tx_hash: log.txHash.toLowerCase(),
            pool: ev.address,
            protocol: pool.protocol,
            token: wethIs0 ? pool.token1 : pool.token0,
            trader: log.txFrom.toLowerCase(),
            token_in: (wethIs0 ? ev.amount1In : ev.amount0In).toString(),
            token_out: (wethIs0 ? ev.amount1Out : ev.amount0Out).toString(),
            weth_in: (wethIs0 ? ev.amount0In : ev.amount1In).toString(),
            weth_out: (wethIs0 ? ev.amount0Out : ev.amount1Out).toString(),
            block_time: t,
          })
          break
        }
        case 'v2_sync':
          if (!pools.get(ev.address)) break
          reserves.push({ ...at, pool: ev.address, reserve0: ev.reserve0.toString(), reserve1: ev.reserve1.toString(), block_time: t })
          break
        case 'v2_mint':
        case 'v2_burn': {
          const pool = pools.get(ev.address)
          if (!pool) break
          liquidity.push({
            ...at,
            tx_hash: log.txHash.toLowerCase(),
            pool: ev.address,
            kind: ev.type === 'v2_mint' ? 'mint' : 'burn',
            provider: log.txFrom.toLowerCase(),
            amount0: ev.amount0.toString(),
            amount1: ev.amount1.toString(),
            // v2 liquidity is measured in WETH: the WETH side of the Mint/Burn.
            liquidity: (follow.weth.has(pool.token0) ? ev.amount0 : follow.weth.has(pool.token1) ? ev.amount1 : 0n).toString(),
            block_time: t,
          })
          break
        }
      }
    }
  }
  return {
    tables: [
      ['contract_creations', creations],
      ['pools', poolRows],
      ['erc20_transfers', transfers],
      ['swaps', swaps],
      ['pool_reserves', reserves],
      ['liquidity_events', liquidity],
      ['launches', launches],
      ['chain_blocks', blockRows],
    ],
    rejected,
  }
}
