import { z } from 'zod'
import { Measured } from '../catalog/schemas.ts'
import { defineEndpoint } from '../catalog/types.ts'
import type { TokenBook, TokenRecord } from '../serving/token-book.ts'

const SEARCH_RESULTS = 20

type Match = 'address' | 'symbol' | 'symbol_prefix' | 'name'
const MATCH_RANK: Record<Match, number> = { address: 0, symbol: 1, symbol_prefix: 2, name: 3 }

function matchOf(t: TokenRecord, q: string): Match | null {
  const sym = t.symbol.toLowerCase()
  if (t.token === q) return 'address'
  if (sym && sym === q) return 'symbol'
  if (sym && sym.startsWith(q)) return 'symbol_prefix'
  if (t.name && t.name.toLowerCase().includes(q)) return 'name'
  return null
}

/** Rank: match kind, then real tokens, then WETH volume, then launch order. */
export function searchTokens(book: TokenBook, rawQuery: string): Array<{ t: TokenRecord; match: Match }> {
  const q = rawQuery.trim().replace(/^\$/, '').toLowerCase()
  const hits: Array<{ t: TokenRecord; match: Match }> = []
  for (const t of book.tokens.values()) {
    const match = matchOf(t, q)
    if (match) hits.push({ t, match })
  }
  return hits.sort(
    (a, b) =>
      MATCH_RANK[a.match] - MATCH_RANK[b.match] ||
      Number(b.t.realBlock !== null) - Number(a.t.realBlock !== null) ||
      (b.t.wethVolumeWei > a.t.wethVolumeWei ? 1 : b.t.wethVolumeWei < a.t.wethVolumeWei ? -1 : 0) ||
      (a.t.token < b.t.token ? -1 : 1),
  )
}

export const searchEndpoint = defineEndpoint({
  method: 'GET',
  path: '/search',
  summary: 'Search tokens',
  description:
    'Tokens matching q by address, exact symbol ($ optional), symbol prefix or name, ranked by match, then real tokens, then WETH volume. When several tokens share the symbol asked for, a symbol_collision warning says how many.',
  tags: ['token'],
  query: z.object({ q: z.string().trim().min(1, 'expected 1 to 100 characters').max(100, 'expected 1 to 100 characters') }),
  response: z.object({
    data: z.object({
      query: z.string(),
      results: z.array(z.object({
        token: z.string(), symbol: z.string().nullable(), name: z.string().nullable(),
        match: z.enum(['address', 'symbol', 'symbol_prefix', 'name']),
        swaps: z.number().int(), weth_volume_wei: z.string(), is_real: z.boolean(),
        deployer: z.string().nullable(), deployer_score: z.number().int().nullable(),
      })),
      total: z.number().int(),
      warnings: z.array(z.object({ code: z.literal('symbol_collision'), symbol: z.string(), tokens: z.number().int(), message: z.string() })),
    }),
    ...Measured,
  }),
  access: { kind: 'free' },
  tool: { name: 'svc_search' },
  async handler({ query, deps }) {
    const book = await deps.books.get()
    const hits = searchTokens(book, query.q)
    const symbol = query.q.trim().replace(/^\$/, '').toLowerCase()
    const sharing = book.bySymbol.get(symbol) ?? []
    return {
      data: {
        query: query.q,
        results: hits.slice(0, SEARCH_RESULTS).map(({ t, match }) => ({
          token: t.token, symbol: t.symbol || null, name: t.name || null, match,
          swaps: t.swaps, weth_volume_wei: t.wethVolumeWei.toString(), is_real: t.realBlock !== null,
          deployer: t.deployer, deployer_score: t.deployer ? (book.deployers.get(t.deployer)?.score ?? null) : null,
        })),
        total: hits.length,
        warnings:
          sharing.length > 1
            ? [{ code: 'symbol_collision' as const, symbol: sharing[0]!.symbol, tokens: sharing.length, message: `${sharing.length} tokens share the symbol ${sharing[0]!.symbol}; check the address.` }]
            : [],
      },
      chain_id: book.chainId,
      measured_through_block: book.measuredThrough,
    }
  },
})
