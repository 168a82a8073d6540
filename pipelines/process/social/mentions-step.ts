import { drop, ok, type Step } from '../../consumer/step-result.ts'
import type { SocialPost } from '../../records/social.ts'
import { extractTokenRefs, resolveRefs } from '../../social/extract.ts'
import type { TokenDirectory } from './token-directory.ts'

/** One `mentions` row. */
export type MentionRow = Record<string, unknown>

/**
 * A post to its mention rows: the text is read for references (contract addresses, cashtags),
 * resolved against the token directory, and dropped here: nothing after this step sees it.
 */
export function createMentionsStep(deps: { tokens: TokenDirectory }): Step<SocialPost, MentionRow[]> {
  return {
    name: 'mentions',
    run(p) {
      const refs = resolveRefs(extractTokenRefs(p), deps.tokens.bySymbol, deps.tokens.isKnown)
      if (refs.length === 0) return drop('no_reference')
      return ok(refs.map((r) => ({
        post_id: p.id,
        token: r.token ?? '',
        symbol: r.symbol ?? '',
        via: r.via,
        ambiguous: r.ambiguous ? 1 : 0,
        author: p.author,
        posted_at: p.posted_at,
        captured_at: p.captured_at,
      })))
    },
  }
}
