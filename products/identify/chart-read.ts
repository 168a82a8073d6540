/**
 * What a chart screenshot says, from the text read off it (OCR): tickers, prices, contract
 * addresses and hints of the chain it was taken on. Pure functions over text, so /identify's
 * matching can be tested without images.
 */

export type ChainHint = 'solana' | 'base' | 'bsc' | '5042'

export interface ChartRead {
  /** Ticker candidates, strongest first: pair notation (LUDO/WETH), then cashtags, then bare capitals. */
  tickers: Array<{ ticker: string; via: 'pair' | 'cashtag' | 'word' }>
  /** Decimal numbers that can be prices (with a decimal point, positive, not percentages), in reading order. */
  prices: number[]
  /** 0x addresses, lowercase. */
  addresses: string[]
  /** Another chain the chart names (venue, quote asset or chain name); null when none. */
  chainHint: ChainHint | null
}

/** Quote assets and chart furniture that are never the ticker charted. */
const NOT_TICKERS = new Set([
  'WETH', 'ETH', 'USD', 'USDC', 'USDT', 'DAI', 'SOL', 'WSOL', 'BNB', 'VOL', 'VOLUME', 'MA', 'EMA', 'SMA', 'RSI', 'MACD', 'BOLL',
  'UTC', 'LOG', 'AUTO', 'FDV', 'MCAP', 'MC', 'LIQ', 'TVL', 'BUY', 'SELL', 'PRICE', 'CHART', 'TRADE', 'TRADES', 'HOLDERS',
  'OPEN', 'HIGH', 'LOW', 'CLOSE', 'TX', 'TXNS', 'AGE', 'PAIR', 'DEX', 'NEW', 'ALL', 'ADD', 'THE', 'AND', 'FOR', 'TV',
])
const TIMEFRAME = /^\d+[SMHDW]$/

const CHAIN_WORDS: Array<[RegExp, ChainHint]> = [
  [/\b(solana|raydium|pump\.?fun|meteora|orca|jupiter|solscan)\b/i, 'solana'],
  [/\/\s*w?sol\b/i, 'solana'],
  [/\b(aerodrome|basescan|base\s*chain|on\s+base)\b/i, 'base'],
  [/\b(bsc|bscscan|pancakeswap|bnb\s*chain)\b/i, 'bsc'],
  [/\/\s*(w?bnb)\b/i, 'bsc'],
  [/\b(arc\s*(chain|testnet|network)?|chain\s*5042)\b/i, '5042'],
]

function pushTicker(out: ChartRead['tickers'], ticker: string, via: ChartRead['tickers'][number]['via']): void {
  const t = ticker.toUpperCase()
  if (NOT_TICKERS.has(t) || TIMEFRAME.test(t) || /^\d+$/.test(t)) return
  if (!out.some((x) => x.ticker === t)) out.push({ ticker: t, via })
}

/** Read tickers, prices, addresses and a chain hint from OCR text. */
export function readChart(text: string): ChartRead {
  const tickers: ChartRead['tickers'] = []
  for (const m of text.matchAll(/\$?([A-Za-z][A-Za-z0-9]{1,11})\s*\/\s*(W?ETH|USDC?|USDT|DAI|W?SOL|W?BNB)\b/gi)) pushTicker(tickers, m[1]!, 'pair')
  for (const m of text.matchAll(/\$([A-Za-z][A-Za-z0-9]{1,11})\b/g)) pushTicker(tickers, m[1]!, 'cashtag')
  for (const m of text.matchAll(/\b([A-Z][A-Z0-9]{1,11})\b/g)) pushTicker(tickers, m[1]!, 'word')

  const addresses = [...new Set([...text.matchAll(/\b0x[0-9a-fA-F]{40}\b/g)].map((m) => m[0].toLowerCase()))]
  // Addresses are not prices: drop them before reading numbers.
  const numeric = text.replace(/\b0x[0-9a-fA-F]+\b/g, ' ')
  const prices: number[] = []
  for (const m of numeric.matchAll(/(?<![\w.])\$?(\d{1,12}\.\d{1,18})(?![\w.%])/g)) {
    const p = Number(m[1])
    if (p > 0 && Number.isFinite(p) && !prices.includes(p)) prices.push(p)
  }
  const chainHint = CHAIN_WORDS.find(([re]) => re.test(text))?.[1] ?? null
  return { tickers, prices, addresses, chainHint }
}

/** A token the matcher may name. */
export interface ChartCandidate {
  token: string
  symbol: string
  /** Price per whole token in WETH and in USD, when measured. */
  priceWeth: number | null
  priceUsd: number | null
  /** Activity, to order tokens that share a symbol. */
  swaps: number
}

export interface ChartMatch {
  token: string
  symbol: string
  method: 'address' | 'ticker' | 'price_band'
  confidence: number
}

export interface ChartIdentification {
  match: ChartMatch | null
  alternates: ChartMatch[]
  /** Set when the chart names another chain and nothing of ours was named by address: resolved there, not force-matched. */
  crossChain: { chain: ChainHint; ticker: string | null } | null
}

/** The price band: a read price matches a token priced within plus or minus 20 percent. */
export const PRICE_BAND = 0.2
const MAX_ALTERNATES = 5
const round2 = (x: number) => Math.round(x * 100) / 100

/** How far a token's price is from a read price (relative); Infinity when it has none. */
function distance(c: ChartCandidate, price: number): number {
  const ds = [c.priceWeth, c.priceUsd].filter((p): p is number => p !== null && p > 0).map((p) => Math.abs(p - price) / price)
  return ds.length ? Math.min(...ds) : Infinity
}

function closestDistance(c: ChartCandidate, prices: number[]): number {
  return prices.length ? Math.min(...prices.map((p) => distance(c, p))) : Infinity
}

/**
 * Identify the token a chart shows. A contract address we track wins outright; otherwise, a
 * chart of another chain is resolved there (never force-matched to a token of ours); otherwise
 * a visible ticker wins (tokens sharing the symbol are ordered by the price band, then activity);
 * otherwise the price band: tokens priced within 20% of a read price, closest first.
 * Confidence is in [0, 1] and shared among tokens that fit equally.
 */
export function identifyChart(read: ChartRead, lookup: { byAddress(a: string): ChartCandidate | undefined; bySymbol(s: string): ChartCandidate[]; all(): Iterable<ChartCandidate> }): ChartIdentification {
  for (const a of read.addresses) {
    const c = lookup.byAddress(a)
    if (c) return { match: { token: c.token, symbol: c.symbol, method: 'address', confidence: 0.99 }, alternates: [], crossChain: null }
  }
  if (read.chainHint) return { match: null, alternates: [], crossChain: { chain: read.chainHint, ticker: read.tickers[0]?.ticker ?? null } }

  for (const { ticker, via } of read.tickers) {
    const hits = lookup.bySymbol(ticker)
    if (!hits.length) continue
    const base = via === 'word' ? 0.75 : 0.9
    const ranked = [...hits].sort((a, b) => closestDistance(a, read.prices) - closestDistance(b, read.prices) || b.swaps - a.swaps || a.token.localeCompare(b.token))
    const singledOut = hits.length > 1 && ranked.filter((c) => closestDistance(c, read.prices) <= PRICE_BAND).length === 1
    // One token with that symbol: the ticker decides. Several: the price band may single one out
    // (it keeps most of the confidence); otherwise they share it, the most active first.
    const confidenceAt = (i: number) =>
      hits.length === 1 ? base : singledOut ? (i === 0 ? base * 0.9 : (base * 0.1) / (hits.length - 1)) : base / hits.length
    const [first, ...rest] = ranked.map((c, i) => ({ token: c.token, symbol: c.symbol, method: 'ticker' as const, confidence: round2(confidenceAt(i)) }))
    return { match: first!, alternates: rest.slice(0, MAX_ALTERNATES), crossChain: null }
  }

  if (read.prices.length) {
    const fits = [...lookup.all()]
      .map((c) => ({ c, d: closestDistance(c, read.prices) }))
      .filter((x) => x.d <= PRICE_BAND)
      .sort((a, b) => a.d - b.d || b.c.swaps - a.c.swaps || a.c.token.localeCompare(b.c.token))
    if (fits.length) {
      // A price alone is weak evidence: at most 0.6, shared among the tokens that fit, less with distance.
      const share = 0.6 / fits.length
      const [first, ...rest] = fits.map(({ c, d }) => ({ token: c.token, symbol: c.symbol, method: 'price_band' as const, confidence: round2(share * (1 - d)) }))
      return { match: first!, alternates: rest.slice(0, MAX_ALTERNATES), crossChain: null }
    }
  }
  return { match: null, alternates: [], crossChain: null }
}
