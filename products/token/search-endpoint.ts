import { z } from 'zod'
import { Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import type { TokenRecord, TokenServing } from './token-serving.ts'

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

/** Candidates of each kind read per search: bounds the work of a search whatever the chain's size. */
const CANDIDATES_PER_KIND = 500

const ADDRESS = /^0x[0-9a-f]{40}$/

/**
 * Tokens matching q, each kind read by its own keyed access path (address: the key; symbol and
 * prefix: projection by_symbol; name: the ngram index), ranked by match kind, then real tokens,
 * then WETH volume, then address.
 */
export async function searchTokens(tokens: TokenServing, rawQuery: string): Promise<Array<{ t: TokenRecord; match: Match }>> {
  const q = rawQuery.trim().replace(/^\$/, '').toLowerCase()
  const found = new Map<string, TokenRecord>()
  const add = (list: Iterable<TokenRecord>) => {
    for (const t of list) found.set(t.token, t)
  }
  if (ADDRESS.test(q)) add((await tokens.tokens([q])).values())
  const [prefixed, named] = await Promise.all([
    tokens.bySymbol(q, { prefix: true, limit: CANDIDATES_PER_KIND }),
    tokens.byName(q, CANDIDATES_PER_KIND),
  ])
  add(prefixed)
  add(named)
  const hits: Array<{ t: TokenRecord; match: Match }> = []
  for (const t of found.values()) {
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

export const searchEndpoint = defineEndpoint<Uses<'tokens'>>()({
  method: 'GET',
  path: '/search',
  summary: 'Search tokens',
  description:
    'Tokens matching q by address, exact symbol ($ optional), symbol prefix or name (3 characters at least), ranked by match, then real tokens, then WETH volume; total counts the matches among at most 500 candidates of each kind. When several tokens share the symbol asked for, a symbol_collision warning says how many.',
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
    const hits = await searchTokens(deps.tokens, query.q)
    const sharing = hits.filter((h) => h.match === 'symbol').map((h) => h.t)
    const scores = await deps.tokens.deployers(hits.slice(0, SEARCH_RESULTS).map((h) => h.t.deployer ?? '').filter(Boolean))
    return {
      data: {
        query: query.q,
        results: hits.slice(0, SEARCH_RESULTS).map(({ t, match }) => ({
          token: t.token, symbol: t.symbol || null, name: t.name || null, match,
          swaps: t.swaps, weth_volume_wei: t.wethVolumeWei.toString(), is_real: t.realBlock !== null,
          deployer: t.deployer, deployer_score: t.deployer ? (scores.get(t.deployer)?.score ?? null) : null,
        })),
        total: hits.length,
        warnings:
          sharing.length > 1
            ? [{ code: 'symbol_collision' as const, symbol: sharing[0]!.symbol, tokens: sharing.length, message: `${sharing.length} tokens share the symbol ${sharing[0]!.symbol}; check the address.` }]
            : [],
      },
      chain_id: deps.tokens.chainId,
      measured_through_block: deps.tokens.measuredThrough(),
    }
  },
})
