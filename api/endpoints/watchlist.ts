import { z } from 'zod'
import { WATCHLIST_LIMIT } from '../../core/domain/plans.ts'
import { Address } from '../catalog/schemas.ts'
import { defineEndpoint, type HandlerContext } from '../catalog/types.ts'
import { ApiError } from '../errors.ts'

const Watchlist = z.object({ data: z.object({ tokens: z.array(z.string()), limit: z.number().int() }) })

/** One set per key, in the store (Redis when configured: shared by API processes, kept across restarts). */
const listKey = (ctx: HandlerContext<unknown, unknown, unknown>) => {
  if (!ctx.grant.keyHash) throw new ApiError('missing_key', 'The watchlist belongs to a subscription key: send x-svc-key.')
  return `watchlist:${ctx.grant.keyHash}`
}

async function view(ctx: HandlerContext<unknown, unknown, unknown>) {
  return { data: { tokens: (await ctx.deps.store.smembers(listKey(ctx))).sort(), limit: WATCHLIST_LIMIT } }
}

export const watchTokenEndpoint = defineEndpoint({
  method: 'POST',
  path: '/watchlist/{token}',
  summary: 'Watch a token',
  description: `Adds a token to the key's watchlist (daily structure scan, results free with the key). At most ${WATCHLIST_LIMIT} tokens: the next answers 409.`,
  tags: ['account'],
  params: z.object({ token: Address }),
  response: Watchlist,
  access: { kind: 'key', feature: 'watchlist' },
  async handler(ctx) {
    const key = listKey(ctx)
    const members = await ctx.deps.store.smembers(key)
    if (!members.includes(ctx.params.token) && members.length >= WATCHLIST_LIMIT) {
      throw new ApiError('conflict', `The watchlist holds at most ${WATCHLIST_LIMIT} tokens; remove one first.`, { limit: WATCHLIST_LIMIT })
    }
    await ctx.deps.store.sadd(key, ctx.params.token)
    // Two concurrent adds can both pass the check: undo ours if the set went over.
    if ((await ctx.deps.store.scard(key)) > WATCHLIST_LIMIT && !members.includes(ctx.params.token)) {
      await ctx.deps.store.srem(key, ctx.params.token)
      throw new ApiError('conflict', `The watchlist holds at most ${WATCHLIST_LIMIT} tokens; remove one first.`, { limit: WATCHLIST_LIMIT })
    }
    return view(ctx)
  },
})

export const listWatchlistEndpoint = defineEndpoint({
  method: 'GET',
  path: '/watchlist',
  summary: 'List watched tokens',
  description: "The key's watched tokens.",
  tags: ['account'],
  response: Watchlist,
  access: { kind: 'key', feature: 'watchlist' },
  handler: view,
})

export const unwatchTokenEndpoint = defineEndpoint({
  method: 'DELETE',
  path: '/watchlist/{token}',
  summary: 'Unwatch a token',
  description: 'Removes a token from the watchlist.',
  tags: ['account'],
  params: z.object({ token: Address }),
  response: Watchlist,
  access: { kind: 'key', feature: 'watchlist' },
  async handler(ctx) {
    await ctx.deps.store.srem(listKey(ctx), ctx.params.token)
    return view(ctx)
  },
})
