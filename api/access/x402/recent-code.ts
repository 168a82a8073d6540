import type { Address, Hex } from 'viem'

type GetCode = (args: { address: Address }) => Promise<Hex | undefined>

/**
 * `getCode` with each address's answer kept for `ttlMs` (at most `maxEntries` addresses; calls
 * for the same address in flight share one request). The exact EVM scheme asks for the payer's
 * code twice while verifying a payment (is it a smart wallet? whose signature check?) and twice
 * again while settling it, four requests to the chain per paid call for one fact. Keeping it for
 * seconds changes no outcome: the token checks the signature again when it executes the transfer,
 * and the settlement's receipt is checked for the transfer.
 */
export function recentCode(getCode: GetCode, ttlMs: number, maxEntries: number, now: () => number = Date.now): GetCode {
  const kept = new Map<string, { at: number; code: Promise<Hex | undefined> }>()
  return ({ address }) => {
    const key = address.toLowerCase()
    const t = now()
    const hit = kept.get(key)
    if (hit && t - hit.at < ttlMs) return hit.code
    if (hit) kept.delete(key)
    else if (kept.size >= maxEntries) kept.delete(kept.keys().next().value!)
    const code = getCode({ address })
    // A failed request is not kept: the next call asks again.
    code.catch(() => {
      if (kept.get(key)?.code === code) kept.delete(key)
    })
    kept.set(key, { at: t, code })
    return code
  }
}
