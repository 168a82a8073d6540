import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { ApiError } from '../../core/endpoint/errors.ts'

/**
 * Whether the chain has anything of `token`: a transfer, a pool or its creation, the same
 * evidence a structure or forensics scan needs to answer. Three keyed reads of one row each
 * (every table is ordered by chain and token or address), so refusing an address nobody has seen
 * costs a few milliseconds, not a queued job.
 */
export async function isKnownToken(ch: ClickHouseClient, chainId: number, token: string): Promise<boolean> {
  const [r] = await queryRows<{ n: string }>(
    ch,
    `SELECT
       (SELECT count() FROM (SELECT 1 FROM holder_deltas WHERE chain_id = {chain:UInt32} AND token = {token:String} LIMIT 1))
     + (SELECT count() FROM (SELECT 1 FROM token_pools WHERE chain_id = {chain:UInt32} AND token = {token:String} LIMIT 1))
     + (SELECT count() FROM (SELECT 1 FROM contract_creations WHERE chain_id = {chain:UInt32} AND address = {token:String} LIMIT 1)) AS n`,
    { chain: chainId, token },
  )
  return Number(r?.n ?? 0) > 0
}

/**
 * Refuse the holder structure of the chain's wrapped ether (the quote side of its pools): it mints
 * on Deposit and burns on Withdrawal, events the service does not decode, so balances replayed
 * from its Transfer logs are not its holders' balances (they went below zero, outside the answer's
 * own schema, and a scan failed archiving them). Checked from the request alone: no engine read.
 */
export function refuseWrappedEther(quoteTokens: ReadonlySet<string>, token: string): void {
  if (!quoteTokens.has(token)) return
  throw new ApiError(
    'invalid_parameter',
    `${token} is the chain's wrapped ether, the quote side of its pools: its mints and burns are Deposit and Withdrawal events, not Transfer logs, so its holders' balances cannot be replayed from them. Holder structure is answered for the tokens traded against it.`,
    { parameter: 'token', in: 'path', expected: 'a token traded against wrapped ether, not wrapped ether itself' },
  )
}

declare module '../../core/endpoint/deps.ts' {
  interface ApiDeps {
    /** The chain's wrapped ether address(es) (CHAIN_4663_WETH, plus the simulator's when it runs). */
    quoteTokens: ReadonlySet<string>
  }
}
