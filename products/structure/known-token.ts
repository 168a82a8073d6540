import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { createKeyBatcher } from '../../core/serving/key-batcher.ts'

/**
 * Whether the chain has anything of `token`: a transfer, a pool or its creation, the same
 * evidence a structure or forensics scan needs to answer. Keyed reads (every table is ordered by
 * chain and token or address), shared by the asks that arrive while one runs
 * (core/serving/key-batcher.ts): refusing a flood of addresses nobody has seen costs the engine a
 * statement per round of asks, not one per address, and never a queued job.
 */
export function isKnownToken(ch: ClickHouseClient, chainId: number, token: string): Promise<boolean> {
  let byChain = lookups.get(ch)
  if (!byChain) lookups.set(ch, (byChain = new Map()))
  let lookup = byChain.get(chainId)
  if (!lookup) byChain.set(chainId, (lookup = createKeyBatcher((tokens) => knownOf(ch, chainId, tokens), { maxKeys: KNOWN_PER_STATEMENT, absent: false })))
  return lookup(token)
}

/** Addresses per statement of isKnownToken (a round of asks larger than this takes several). */
const KNOWN_PER_STATEMENT = 1_000

/** One lookup per engine client and chain (a test's wrapped client gets its own). */
const lookups = new WeakMap<ClickHouseClient, Map<number, (token: string) => Promise<boolean>>>()

async function knownOf(ch: ClickHouseClient, chainId: number, tokens: string[]): Promise<Map<string, boolean>> {
  const rows = await queryRows<{ token: string }>(
    ch,
    `SELECT DISTINCT token FROM (
       SELECT token FROM holder_deltas WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} LIMIT 1 BY token
       UNION ALL SELECT token FROM token_pools WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} LIMIT 1 BY token
       UNION ALL SELECT address AS token FROM contract_creations WHERE chain_id = {chain:UInt32} AND address IN {tokens:Array(String)} LIMIT 1 BY address)`,
    { chain: chainId, tokens },
  )
  return new Map(rows.map((r) => [r.token, true]))
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
