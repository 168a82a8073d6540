import { z } from 'zod'
import { WATCHLIST_LIMIT } from '../../core/plans.ts'
import { keyedSerializer } from '../../core/serialized.ts'
import { Address } from '../../core/endpoint/schemas.ts'
import { defineEndpoint, type HandlerContext } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { moveStoreWatchlist, watchedTokens, writeWatched } from './watchlist-table.ts'
import { refuseWrappedEther } from '../structure/known-token.ts'

const Watchlist = z.object({ data: z.object({ tokens: z.array(z.string()), limit: z.number().int() }) })

type Ctx = HandlerContext<unknown, unknown, unknown, Uses<'ch' | 'store'>>

/** The watchlist belongs to the key that admitted the call (kept in ClickHouse by its hash). */
async function ownerOf(ctx: Ctx): Promise<string> {
  const keyHash = ctx.grant.keyHash
  if (!keyHash) throw new ApiError('missing_key', 'The watchlist belongs to a subscription key: send x-svc-key.')
  await moveStoreWatchlist(ctx.deps.ch, ctx.deps.store, keyHash)
  return keyHash
}

const answer = (tokens: string[]) => ({ data: { tokens, limit: WATCHLIST_LIMIT } })

const full = () => new ApiError('conflict', `The watchlist holds at most ${WATCHLIST_LIMIT} tokens; remove one first.`, { limit: WATCHLIST_LIMIT })

// One change at a time per key in this process, so two adds cannot both see room for one more.
const serialized = keyedSerializer()

export const watchTokenEndpoint = defineEndpoint<Uses<'ch' | 'store' | 'quoteTokens'>>()({
  method: 'POST',
  path: '/watchlist/{token}',
  summary: 'Watch a token',
  description: `Adds a token to the key's watchlist (daily structure scan, results free with the key). At most ${WATCHLIST_LIMIT} tokens: the next answers 409. Adding a watched token again changes nothing.`,
  tags: ['account'],
  params: z.object({ token: Address }),
  response: Watchlist,
  access: { kind: 'key', feature: 'watchlist' },
  errors: ['conflict'],
  async handler(ctx) {
    const keyHash = await ownerOf(ctx)
    const token = ctx.params.token
    // A watched token gets a daily structure scan, which wrapped ether has none of.
    refuseWrappedEther(ctx.deps.quoteTokens, token)
    return serialized(keyHash, async () => {
      const before = await watchedTokens(ctx.deps.ch, keyHash)
      if (before.includes(token)) return answer(before)
      if (before.length >= WATCHLIST_LIMIT) throw full()
      await writeWatched(ctx.deps.ch, keyHash, [token], true)
      const after = await watchedTokens(ctx.deps.ch, keyHash)
      // Another API process may have added at the same moment: undo ours if the list went over.
      if (after.length > WATCHLIST_LIMIT) {
        await writeWatched(ctx.deps.ch, keyHash, [token], false)
        throw full()
      }
      return answer(after)
    })
  },
})

export const listWatchlistEndpoint = defineEndpoint<Uses<'ch' | 'store'>>()({
  method: 'GET',
  path: '/watchlist',
  summary: 'List watched tokens',
  description: "The key's watched tokens.",
  tags: ['account'],
  response: Watchlist,
  access: { kind: 'key', feature: 'watchlist' },
  async handler(ctx) {
    return answer(await watchedTokens(ctx.deps.ch, await ownerOf(ctx)))
  },
})

export const unwatchTokenEndpoint = defineEndpoint<Uses<'ch' | 'store'>>()({
  method: 'DELETE',
  path: '/watchlist/{token}',
  summary: 'Unwatch a token',
  description: 'Removes a token from the watchlist; removing one that is not watched changes nothing.',
  tags: ['account'],
  params: z.object({ token: Address }),
  response: Watchlist,
  access: { kind: 'key', feature: 'watchlist' },
  async handler(ctx) {
    const keyHash = await ownerOf(ctx)
    return serialized(keyHash, async () => {
      const before = await watchedTokens(ctx.deps.ch, keyHash)
      if (!before.includes(ctx.params.token)) return answer(before)
      await writeWatched(ctx.deps.ch, keyHash, [ctx.params.token], false)
      return answer(before.filter((t) => t !== ctx.params.token))
    })
  },
})
