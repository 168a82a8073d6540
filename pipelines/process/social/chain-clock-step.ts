import { hold, ok, type Step } from '../../consumer/step-result.ts'
import type { SocialPost } from '../../records/social.ts'
import type { TokenDirectory } from './token-directory.ts'

/** A post newer than the chain is held back this long at most, waiting for the chain to catch up. */
export const CHAIN_STALL_SECONDS = 30

/**
 * Holds back posts newer than the ingested chain: a cashtag is resolved against the tokens that
 * exist at the post's time. Once the chain has not advanced for CHAIN_STALL_SECONDS (a stopped
 * source), posts go through anyway. Refreshes the token directory once per batch.
 */
export function createChainClockStep(deps: { tokens: TokenDirectory; stallSeconds?: number; now?: () => number }): Step<SocialPost, SocialPost> {
  const now = deps.now ?? Date.now
  const stallMs = (deps.stallSeconds ?? CHAIN_STALL_SECONDS) * 1000
  let seen = { time: -1, at: now() }
  return {
    name: 'chain-clock',
    async beforeBatch() {
      await deps.tokens.refresh()
      const t = deps.tokens.chainTime()
      if (t !== seen.time) seen = { time: t, at: now() }
    },
    run(post) {
      if (post.posted_at <= seen.time || now() - seen.at > stallMs) return ok(post)
      return hold(`post ahead of the chain (${post.posted_at} > ${seen.time})`)
    },
  }
}
