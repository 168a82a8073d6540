import { z } from 'zod'
import { IsoCursor, Limit, LongPollWait, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { isoToMicros, microsToIso } from '../../core/serving/cursor.ts'
import { createSharedAnswers, type SharedAnswers } from '../../core/serving/shared-answer.ts'
import { renderOnce } from '../../core/serving/rendered-json.ts'
import { heldSeconds, markWoken } from '../../core/serving/long-poll.ts'
import { createPerVersionAnswers, KEPT_FEED_PAGES, keepsFeedPage, type PerVersionAnswers } from '../../core/serving/per-version-answers.ts'
import type { DeployerRecord, TokenRecord } from '../token/token-serving.ts'
import { priceView, PriceView } from '../token/token-view.ts'
import { callerSignals, CallerSignalView } from '../social/caller-signal.ts'

/** The free tier sees the feed this late. */
export const FREE_FEED_DELAY_SECONDS = 600

/** Feed pages one call reads at most while filtering by min_score. */
const FEED_MAX_PAGES = 10

const FeedItem = z.object({
  token: z.string(),
  symbol: z.string().nullable(),
  name: z.string().nullable(),
  deployer: z.string().nullable(),
  deployer_score: z.number().int().nullable(),
  deployer_band: z.string().nullable(),
  pool: z.string(),
  protocol: z.string(),
  launch_block: z.number().int(),
  launched_at: z.string(),
  visible_at: z.string().meta({ description: 'when the launch entered this feed; the cursor' }),
  swaps: z.number().int(),
  weth_volume_wei: z.string(),
  is_real: z.boolean(),
  price: PriceView.nullable(),
  caller_signal: CallerSignalView.optional(),
})

export const feedEndpoint = defineEndpoint<Uses<'tokens' | 'ch' | 'social' | 'config' | 'watermarks'>>()({
  method: 'GET',
  path: '/feed/new',
  summary: 'Launch feed',
  description:
    "New launches (a token's first WETH pool) in the order they entered the feed. Poll with since=next_since: an item is never repeated and never skipped, also while launches arrive. tier=free is delayed by 10 minutes and costs nothing; the realtime feed costs 0.01; tier=alpha adds caller_signal at 0.02 in total: how many measured callers called each launch, their best grade, and the first measured call with its minutes after the launch. min_score keeps launches whose deployer currently scores at least that. Without since, the latest `limit` launches.",
  tags: ['feed'],
  query: z.object({
    tier: z.enum(['free', 'alpha']).optional(),
    min_score: z.coerce.number().int('expected an integer from 0 to 100').min(0, 'expected an integer from 0 to 100').max(100, 'expected an integer from 0 to 100').optional(),
    since: IsoCursor.optional(),
    limit: Limit(),
    wait: LongPollWait.optional(),
  }),
  response: z.object({
    data: z.object({
      launches: z.array(FeedItem),
      next_since: z.string().nullable().meta({ description: 'pass as since on the next call' }),
      tier: z.enum(['realtime', 'free', 'alpha']),
      delayed_seconds: z.number().int(),
    }),
    ...Measured,
  }),
  access: { kind: 'paid', price: '0.01', priceFor: (q) => (q.tier === 'free' ? null : q.tier === 'alpha' ? '0.02' : '0.01'), note: 'tier=free: free, delayed 10 minutes; default: 0.01; tier=alpha: 0.02' },
  tool: { name: 'svc_feed' },
  async handler({ query, deps }) {
    const answer = async () => {
      const delayed = query.tier === 'free' ? FREE_FEED_DELAY_SECONDS : 0
      const horizonUs = (Date.now() - delayed * 1000) * 1000
      const minScore = query.min_score
      const scores = new Map<string, DeployerRecord | undefined>()
      const keep = async (page: TokenRecord[]) => {
        const ds = await deps.tokens.deployers(page.map((t) => t.deployer ?? '').filter(Boolean))
        for (const t of page) if (t.deployer) scores.set(t.deployer, ds.get(t.deployer))
        return minScore === undefined ? page : page.filter((t) => (scores.get(t.deployer ?? '')?.score ?? -1) >= minScore)
      }
      // Read the feed (launch_feed, in visible_at order) a page at a time until `limit` launches pass
      // the filter; a bounded number of pages, so the cursor says how far this call looked.
      const pageSize = Math.min(1000, query.limit * (minScore === undefined ? 1 : 4))
      let picked: TokenRecord[] = []
      let cursorUs: number | null
      // When the batch that woke a long poll was learnt of (svc_long_poll_answer_seconds).
      let wokenBy: number | undefined
      if (query.since !== undefined) {
        const pageAfter = async (sinceUs: number, throughUs: number) => {
          let cursor = sinceUs
          for (let pages = 0; pages < FEED_MAX_PAGES && picked.length < query.limit; pages++) {
            const page = await deps.tokens.feedAfter(cursor, throughUs, pageSize)
            if (page.lastUs === null) break
            for (const t of await keep(page.tokens)) {
              if (picked.length === query.limit) break
              picked.push(t)
            }
            // The cursor stops at the last launch taken when the page was not used up.
            cursor = picked.length === query.limit ? picked[picked.length - 1]!.launch!.visibleUs : page.lastUs
            if (page.tokens.length < pageSize) break
          }
          return cursor
        }
        cursorUs = await pageAfter(isoToMicros(query.since)!, horizonUs)
        // A long poll at the head: wait for the batch that serves the next launch, then read again.
        const deadline = Date.now() + heldSeconds(query.wait, deps.config) * 1000
        while (picked.length === 0 && Date.now() < deadline) {
          if (!(await deps.tokens.waitForLaunch(cursorUs, deadline - Date.now()))) break
          wokenBy = deps.watermarks.advancedAt(deps.tokens.chainId)
          const before: number | null = cursorUs
          cursorUs = await pageAfter(cursorUs, (Date.now() - delayed * 1000) * 1000)
          // Served but not yet visible to this tier (the free delay): no spinning until it is.
          if (picked.length === 0 && cursorUs === before) break
        }
      } else {
        // The cursor is the newest launch of the first page read: a launch served after that read
        // is after the cursor and not on the page, so the next poll sees it exactly once.
        cursorUs = null
        let before: number | undefined
        for (let pages = 0; pages < FEED_MAX_PAGES && picked.length < query.limit; pages++) {
          const page = await deps.tokens.feedBefore(horizonUs, pageSize, before)
          if (pages === 0) cursorUs = page.firstUs
          if (page.lastUs === null) break
          picked.push(...(await keep(page.tokens)).slice(0, query.limit - picked.length))
          before = page.lastUs
          if (page.tokens.length < pageSize) break
        }
        picked = picked.reverse()
      }
      const signals = query.tier === 'alpha' ? await callerSignals(deps, picked.map((t) => ({ token: t.token, launchedAt: Date.parse(t.launch!.launchedAt) / 1000 }))) : undefined
      return markWoken({
        data: {
          launches: picked.map((t) => {
            const d = t.deployer ? scores.get(t.deployer) : undefined
            const item = feedItemOf(t, d)
            return signals ? { ...item, caller_signal: signals.get(t.token)! } : item
          }),
          next_since: cursorUs === null ? null : microsToIso(cursorUs),
          tier: query.tier ?? ('realtime' as const),
          delayed_seconds: delayed,
        },
        chain_id: deps.tokens.chainId,
        measured_through_block: deps.tokens.measuredThrough(),
      }, picked.length > 0 ? wokenBy : undefined)
    }
    // Realtime pages after a cursor depend on the query and the served block only: pollers at the
    // head, woken together by the batch that serves a launch, share one answer (and its JSON).
    if (query.since === undefined || query.tier !== undefined) return answer()
    const key = `${query.since}|${query.limit}|${query.min_score ?? ''}|${query.wait ?? 0}`
    const pages = pagesOf(deps.tokens)
    // A page behind the head, kept for the served batch it was read at: the batch this process
    // learnt of last (a page is read at it or later), so a batch served since is never answered from before it.
    const served = deps.watermarks.seq(deps.tokens.chainId)
    type Page = Awaited<ReturnType<typeof answer>>
    const kept = pages.kept.get(served, key) as Page | undefined
    if (kept) return kept
    // A poll that joins one in flight gets its answer, waited for from up to a batch interval earlier.
    const result = (await pages.shared(`${key}|${deps.tokens.measuredThrough()}`, answer)) as Page
    if (keepsFeedPage(result, result.data.launches.length, query.wait)) pages.kept.set(served, key, result)
    return result
  },
})

/** Per token serving (one per API in a process): realtime pages in flight, and those kept for the block. */
const feedPages = new WeakMap<object, { shared: SharedAnswers<object>; kept: PerVersionAnswers<object> }>()

function pagesOf(tokens: object) {
  let pages = feedPages.get(tokens)
  if (!pages) feedPages.set(tokens, (pages = { shared: createSharedAnswers(), kept: createPerVersionAnswers(KEPT_FEED_PAGES, 'feed_pages') }))
  return pages
}

/**
 * A launch's feed item, made once per token record and deployer record (a new record replaces
 * the old object when it changes) and its JSON text with it: pages after different cursors
 * share their items, so a page is its items' kept text joined.
 */
function feedItemOf(t: TokenRecord, d: DeployerRecord | undefined): z.infer<typeof FeedItem> {
  const kept = feedItems.get(t)
  if (kept && kept.deployer === d) return kept.item
  const item = renderOnce({
    token: t.token,
    symbol: t.symbol || null,
    name: t.name || null,
    deployer: t.deployer,
    deployer_score: d?.score ?? null,
    deployer_band: d?.band ?? null,
    pool: t.launch!.pool,
    protocol: t.launch!.protocol,
    launch_block: t.launch!.block,
    launched_at: t.launch!.launchedAt,
    visible_at: microsToIso(t.launch!.visibleUs),
    swaps: t.swaps,
    weth_volume_wei: t.wethVolumeWei.toString(),
    is_real: t.realBlock !== null,
    price: priceView(t),
  })
  feedItems.set(t, { deployer: d, item })
  return item
}

const feedItems = new WeakMap<TokenRecord, { deployer: DeployerRecord | undefined; item: z.infer<typeof FeedItem> }>()

