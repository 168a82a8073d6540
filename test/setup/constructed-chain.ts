import type { ClickHouseClient } from '../../core/clickhouse.ts'

/**
 * A constructed chain written straight into the raw tables (the views then fill the keyed
 * copies: transfers_by_token, token_activity, token_supply, pool_providers), for tests whose
 * expected answers are computed from the same constructed rows.
 */
export const ZERO = '0x0000000000000000000000000000000000000000'
export const CHAIN = 4663

let counter = 0
/** A fresh lowercase address with a readable prefix byte. */
export function address(prefix: number): string {
  counter++
  return `0x${prefix.toString(16).padStart(2, '0')}${counter.toString(16).padStart(38, '0')}`
}

export interface Transfer {
  block: number
  from: string
  to: string
  value: bigint
}

export function createConstructedChain(ch: ClickHouseClient, opts: { genesis?: number; blockSeconds?: number } = {}) {
  const genesis = opts.genesis ?? 1_700_000_000
  const blockSeconds = opts.blockSeconds ?? 12
  const time = (block: number) => genesis + block * blockSeconds
  const logIndex = new Map<number, number>()
  const nextLog = (block: number) => {
    const i = logIndex.get(block) ?? 0
    logIndex.set(block, i + 1)
    return i
  }
  const insert = (table: string, values: Record<string, unknown>[]) => (values.length ? ch.insert({ table, values, format: 'JSONEachRow' }) : Promise.resolve())
  const tx = (block: number, i: number) => `0x${block.toString(16).padStart(16, '0')}${i.toString(16).padStart(48, '0')}`
  return {
    time,
    async blocks(from: number, to: number) {
      const rows = []
      for (let b = from; b <= to; b++) rows.push({ chain_id: CHAIN, number: b, hash: `0xb${b}`, parent_hash: `0xb${b - 1}`, timestamp: time(b), log_count: 0 })
      await insert('chain_blocks', rows)
    },
    async creation(token: string, deployer: string, block: number) {
      await insert('contract_creations', [{ chain_id: CHAIN, address: token, deployer, block_number: block, tx_index: 0, tx_hash: tx(block, 999), created_at: time(block), name: 'T', symbol: 'T', decimals: 18 }])
    },
    async transfers(token: string, list: Transfer[]) {
      await insert('erc20_transfers', list.map((t) => {
        const i = nextLog(t.block)
        return { chain_id: CHAIN, block_number: t.block, log_index: i, tx_hash: tx(t.block, i), token, from_address: t.from, to_address: t.to, value: t.value.toString(), block_time: time(t.block) }
      }))
    },
    async pool(pool: string, token: string, weth: string, block: number) {
      await insert('pools', [{ chain_id: CHAIN, pool, protocol: 'v2', factory: ZERO, token0: token, token1: weth, block_number: block, log_index: nextLog(block), created_at: time(block) }])
      await insert('launches', [{ chain_id: CHAIN, token, pool, protocol: 'v2', block_number: block, launched_at: time(block), visible_at: time(block) * 1_000_000 }])
    },
    async swap(pool: string, token: string, trader: string, block: number, s: { tokenIn?: bigint; tokenOut?: bigint; wethIn?: bigint; wethOut?: bigint }) {
      const i = nextLog(block)
      await insert('swaps', [{
        chain_id: CHAIN, block_number: block, log_index: i, tx_hash: tx(block, i), pool, protocol: 'v2', token, trader,
        token_in: String(s.tokenIn ?? 0n), token_out: String(s.tokenOut ?? 0n), weth_in: String(s.wethIn ?? 0n), weth_out: String(s.wethOut ?? 0n), block_time: time(block),
      }])
    },
    async liquidity(pool: string, provider: string, kind: 'mint' | 'burn', block: number, liquidity: bigint) {
      const i = nextLog(block)
      await insert('liquidity_events', [{
        chain_id: CHAIN, block_number: block, log_index: i, tx_hash: tx(block, i), pool, kind, provider, amount0: '0', amount1: liquidity.toString(), liquidity: liquidity.toString(), block_time: time(block),
      }])
    },
  }
}
