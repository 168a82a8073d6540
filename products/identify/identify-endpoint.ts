import { z } from 'zod'
import { identifyChart, PRICE_BAND, readChart, type ChartCandidate, type ChartMatch } from './chart-read.ts'
import { LARGE_BODY_LIMIT_BYTES } from '../../core/endpoint/body-limits.ts'
import { Base64Image, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { checkImage, decodeImage, IMAGE_TYPES, MAX_IMAGE_BYTES } from './image.ts'
import { TextReaderBusy } from './text-reader.ts'
import type { TokenRecord, TokenServing } from '../token/token-serving.ts'

function candidateOf(t: TokenRecord): ChartCandidate {
  const weth = t.quote ? Number(t.quote.priceWeth) : null
  return {
    token: t.token,
    symbol: t.symbol,
    priceWeth: weth,
    priceUsd: weth !== null && t.quote?.ethUsd ? weth * t.quote.ethUsd : null,
    swaps: t.swaps,
  }
}

/** Candidates per price band read: a chart's band is matched among at most this many tokens. */
const BAND_CANDIDATES = 2_000

/**
 * What identifyChart may look at, read up front by key: the addresses, the tickers and the
 * price bands the chart shows (USD prices are turned into WETH bands at any plausible ETH price
 * and checked exactly afterwards). Never a walk over every token.
 */
async function lookupFor(tokens: TokenServing, read: ReturnType<typeof readChart>) {
  const [byAddress, symbols, banded] = await Promise.all([
    tokens.tokens(read.addresses),
    Promise.all(read.tickers.map(async ({ ticker }) => [ticker.toLowerCase(), await tokens.bySymbol(ticker)] as const)),
    tokens.byPrice(
      read.prices.flatMap((p): Array<[number, number]> => [
        [p * (1 - PRICE_BAND), p * (1 + PRICE_BAND)],
        [(p * (1 - PRICE_BAND)) / ETH_USD_CEILING, (p * (1 + PRICE_BAND)) / ETH_USD_FLOOR],
      ]),
      BAND_CANDIDATES,
    ),
  ])
  const bySymbol = new Map(symbols)
  const all = new Map<string, TokenRecord>()
  for (const t of [...byAddress.values(), ...symbols.flatMap(([, l]) => l), ...banded]) all.set(t.token, t)
  return {
    records: all,
    lookup: {
      byAddress: (a: string) => {
        const t = byAddress.get(a)
        return t ? candidateOf(t) : undefined
      },
      bySymbol: (s: string) => (bySymbol.get(s.toLowerCase()) ?? []).map(candidateOf),
      all: function* () {
        for (const t of banded) yield candidateOf(t)
      },
    },
  }
}

/** ETH/USD range a USD price on a chart is converted to WETH with (wide on purpose: the exact check follows). */
const ETH_USD_FLOOR = 100
const ETH_USD_CEILING = 100_000

const Match = z.object({
  token: z.string(),
  symbol: z.string(),
  name: z.string(),
  chain_id: z.literal(4663),
  method: z.enum(['address', 'ticker', 'price_band']).meta({ description: 'what decided it: a visible contract address, a visible ticker, or the price band' }),
  confidence: z.number().min(0).max(1),
  price_weth: z.string().nullable().meta({ description: 'the latest measured price, WETH per token' }),
  price_usd: z.number().nullable(),
})

function matchView(m: ChartMatch, records: Map<string, TokenRecord>): z.infer<typeof Match> {
  const t = records.get(m.token)!
  const c = candidateOf(t)
  return { token: m.token, symbol: m.symbol, name: t.name, chain_id: 4663, method: m.method, confidence: m.confidence, price_weth: t.quote?.priceWeth ?? null, price_usd: c.priceUsd }
}

export const identifyEndpoint = defineEndpoint<Uses<'textReader' | 'tokens' | 'config'>>()({
  method: 'POST',
  path: '/identify',
  summary: 'Identify a chart screenshot',
  description: [
    'Matches a chart screenshot to a token of chain 4663, with a confidence in [0,1] and alternates. The text on the image is read with Tesseract (OCR).',
    'A contract address we track wins; a chart naming another chain (Solana venues or a /SOL pair, Base, BSC, chain 5042) is resolved to that chain in `cross_chain` and never force-matched to a token here;',
    `otherwise a visible ticker wins (pair notation such as LUDO/WETH, then $cashtags, then capitalised words; tokens sharing the symbol are ordered by the price band, then activity);`,
    `otherwise the price band: tokens whose latest WETH or USD price is within ${PRICE_BAND * 100}% of a price read off the image, closest first (at most 0.6 confidence).`,
    `Body: image (base64, raw or a data: URL, at most ${MAX_IMAGE_BYTES} bytes decoded), media_type (${IMAGE_TYPES.join(', ')}; default image/png; a data: URL's type wins).`,
    'Free 5 per day per IP, then 0.02.',
  ].join(' '),
  tags: ['token'],
  body: z.object({
    image: Base64Image(7_000_000),
    media_type: z.enum(IMAGE_TYPES).optional(),
  }),
  response: z.object({
    data: z.object({
      found: z.boolean(),
      match: Match.nullable(),
      confidence: z.number().min(0).max(1).meta({ description: "the match's confidence; 0 without a match" }),
      alternates: z.array(Match).meta({ description: 'other tokens that fit, best first (at most 5)' }),
      cross_chain: z.object({ chain: z.enum(['solana', 'base', 'bsc', '5042']), ticker: z.string().nullable() }).nullable(),
      read: z.object({
        tickers: z.array(z.string()),
        prices: z.array(z.number()),
        addresses: z.array(z.string()),
      }).meta({ description: 'what was read off the image' }),
    }),
    ...Measured,
  }),
  access: { kind: 'mixed', price: '0.02', freePerDay: 5 },
  bodyLimit: LARGE_BODY_LIMIT_BYTES,
  tool: { name: 'svc_identify' },
  // A malformed, oversized or mistyped image is refused before the gate: it spends no free call.
  validate: ({ body }, deps) => void checkImage(body.image, body.media_type, deps.config.IDENTIFY_MAX_PIXELS),
  async handler({ body, deps }) {
    const { bytes } = decodeImage(body.image, body.media_type, deps.config.IDENTIFY_MAX_PIXELS)
    if (!deps.textReader) throw new ApiError('dependency_unavailable', 'Image reading is not available in this process.')
    let text: string
    try {
      text = await deps.textReader.read(bytes)
    } catch (err) {
      if (err instanceof TextReaderBusy) throw new ApiError('dependency_unavailable', `The image reader is busy: ${err.message}; retry shortly.`)
      throw new ApiError('unsupported_media_type', 'The image could not be decoded.', { parameter: 'image' })
    }
    const read = readChart(text)
    const { records, lookup } = await lookupFor(deps.tokens, read)
    const found = identifyChart(read, lookup)
    return {
      data: {
        found: found.match !== null,
        match: found.match ? matchView(found.match, records) : null,
        confidence: found.match?.confidence ?? 0,
        alternates: found.alternates.map((m) => matchView(m, records)),
        cross_chain: found.crossChain,
        read: { tickers: read.tickers.map((t) => t.ticker), prices: read.prices, addresses: read.addresses },
      },
      chain_id: deps.tokens.chainId,
      measured_through_block: deps.tokens.measuredThrough(),
    }
  },
})
