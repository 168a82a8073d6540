import type { ServingTouch } from './serving-refresh.ts'

/**
 * The touches of batches inserted while a chain processor is behind its bus (the start-up backfill,
 * a catch-up after downtime), refreshed together once it has caught up: one refresh over all the
 * keys they touched instead of one per batch (a token traded in every batch of a backfill is
 * refreshed once, and each refresh's fixed cost is paid once).
 */
export interface DeferredRefresh {
  /** The first block not yet served. */
  fromBlock: number
  touch: ServingTouch
}

/** Blocks of a batch below which it is not a catch-up batch (a live batch is refreshed at once). */
export const CATCH_UP_MIN_BLOCKS = 100

/**
 * `deferred` with one more batch's touch. The FIFO pairs are left to the refresh to read by block
 * range (one keyed read over the deferred blocks, exact where a union of batches' pairs would need
 * their leg counts summed per pair).
 */
export function deferOne(deferred: DeferredRefresh | null, fromBlock: number, touch: ServingTouch): DeferredRefresh {
  if (!deferred) return { fromBlock, touch: { ...touch, tradedPairs: undefined } }
  const union = (a: Set<string> | undefined, b: Set<string> | undefined) => new Set([...(a ?? []), ...(b ?? [])])
  const t = deferred.touch
  return {
    fromBlock: deferred.fromBlock,
    touch: {
      tokens: union(t.tokens, touch.tokens),
      launched: union(t.launched, touch.launched),
      traders: union(t.traders, touch.traders),
      tradedTokens: union(t.tradedTokens, touch.tradedTokens),
      ...(t.wallets || touch.wallets ? { wallets: union(t.wallets, touch.wallets) } : {}),
    },
  }
}
