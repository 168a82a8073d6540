/**
 * Token references in a social post: contract addresses (in the text or inside links such as
 * explorer and dex URLs) and cashtags (`$PEPO`, in the text only). Extraction is pure text
 * work; resolution decides which references name a known token, and never guesses between
 * tokens that share a symbol.
 */

export interface TokenRefs {
  /** Lowercase 0x addresses, deduplicated, in order of first appearance (text, then links). */
  addresses: string[]
  /** Uppercase symbols without the `$`, deduplicated, in order of first appearance. */
  cashtags: string[]
}

export interface ResolvedRef {
  /** The token, or null for an ambiguous cashtag. */
  token: string | null
  via: 'address' | 'cashtag'
  /** The cashtag's symbol (uppercase), or null for an address with no cashtag naming it. */
  symbol: string | null
  ambiguous: boolean
}

// 0x and exactly 40 hex digits, not part of a longer word or hex string (a 64-digit tx hash
// has no address in it).
const ADDRESS = /(?<![0-9A-Za-z_])0x[0-9a-fA-F]{40}(?![0-9A-Za-z_])/g
// `$`, a letter, then 1-9 letters or digits, as a whole word: `$100` and `$5k` are amounts.
const CASHTAG = /(?<![0-9A-Za-z_$])\$([A-Za-z][0-9A-Za-z]{1,9})(?![0-9A-Za-z_])/g

/** The addresses and cashtags a post mentions. */
export function extractTokenRefs(post: { text: string; links: readonly string[] }): TokenRefs {
  const addresses = new Set<string>()
  for (const source of [post.text, ...post.links]) {
    for (const m of source.matchAll(ADDRESS)) addresses.add(m[0].toLowerCase())
  }
  const cashtags = new Set<string>()
  for (const m of post.text.matchAll(CASHTAG)) cashtags.add(m[1]!.toUpperCase())
  return { addresses: [...addresses], cashtags: [...cashtags] }
}

/**
 * The tokens a post's references name, one entry per distinct token: an address counts only
 * when it is a known token; a cashtag names a token when exactly one token has that symbol,
 * and is reported as ambiguous (token null, with the symbol) when several do, unless the post
 * also gives the address of one of them, which then settles it. Unknown symbols are dropped.
 * `lookup` gets an uppercase symbol and returns the addresses of the tokens with it.
 */
export function resolveRefs(
  refs: TokenRefs,
  lookup: (symbolUpper: string) => readonly string[],
  isKnownToken: (address: string) => boolean,
): ResolvedRef[] {
  const out: ResolvedRef[] = []
  const byToken = new Map<string, ResolvedRef>()
  for (const address of refs.addresses) {
    const token = address.toLowerCase()
    if (byToken.has(token) || !isKnownToken(token)) continue
    const ref: ResolvedRef = { token, via: 'address', symbol: null, ambiguous: false }
    byToken.set(token, ref)
    out.push(ref)
  }
  for (const tag of refs.cashtags) {
    const symbol = tag.toUpperCase()
    const candidates = [...new Set(lookup(symbol).map((a) => a.toLowerCase()))]
    if (candidates.length === 0) continue
    const named = candidates.find((c) => byToken.has(c))
    if (named !== undefined) {
      // The post's own address picks the token among those sharing the symbol.
      const ref = byToken.get(named)!
      ref.symbol ??= symbol
      continue
    }
    if (candidates.length === 1) {
      const ref: ResolvedRef = { token: candidates[0]!, via: 'cashtag', symbol, ambiguous: false }
      byToken.set(candidates[0]!, ref)
      out.push(ref)
    } else if (!out.some((r) => r.ambiguous && r.symbol === symbol)) {
      out.push({ token: null, via: 'cashtag', symbol, ambiguous: true })
    }
  }
  return out
}
