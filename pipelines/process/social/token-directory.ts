import type { ClickHouseClient } from '../../../core/clickhouse.ts'
import { queryRows } from '../../../core/clickhouse.ts'
import { chainHead } from '../../../core/records/data-clock.ts'

/**
 * Tokens of chain 4663 by address and by symbol, for resolving post references. Loaded
 * incrementally: each refresh reads only creations above the last block it saw.
 */
export interface TokenDirectory {
  refresh(): Promise<void>
  isKnown(address: string): boolean
  /** Addresses of the tokens whose symbol is `symbolUpper`. */
  bySymbol(symbolUpper: string): string[]
  /** Unix seconds of the newest ingested block of chain 4663 (0 before any). */
  chainTime(): number
}

export function createTokenDirectory(ch: ClickHouseClient, chainId = 4663): TokenDirectory {
  const known = new Set<string>()
  const symbols = new Map<string, string[]>()
  let lastBlock = -1
  let chainTime = 0
  return {
    async refresh() {
      const rows = await queryRows<{ address: string; symbol: string; block_number: string }>(
        ch,
        'SELECT address, upper(symbol) AS symbol, block_number FROM contract_creations WHERE chain_id = {chain:UInt32} AND block_number > {after:Int64} ORDER BY block_number',
        { chain: chainId, after: lastBlock },
      )
      for (const r of rows) {
        if (known.has(r.address)) continue
        known.add(r.address)
        if (r.symbol) symbols.set(r.symbol, [...(symbols.get(r.symbol) ?? []), r.address])
        lastBlock = Math.max(lastBlock, Number(r.block_number))
      }
      chainTime = (await chainHead(ch, chainId))?.time ?? 0
    },
    isKnown: (a) => known.has(a),
    bySymbol: (s) => symbols.get(s) ?? [],
    chainTime: () => chainTime,
  }
}
