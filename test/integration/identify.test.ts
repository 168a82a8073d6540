import { decodePaymentRequiredHeader } from '@x402/core/http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { identifyEndpoint } from '../../products/identify/identify-endpoint.ts'
import { PRICE_BAND } from '../../products/identify/chart-read.ts'
import type { TokenRecord } from '../../products/token/token-serving.ts'
import { renderChart } from '../setup/chart-image.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'

/**
 * POST /identify end to end: chart screenshots drawn in the test, read by the real OCR
 * (Tesseract), matched against the simulated world's tokens; the free quota of 5 per day per
 * IP, then the x402 402; bad images refused before they spend a free call.
 */
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
let env: Embedded
let tokens: TokenRecord[]

beforeAll(async () => {
  // x402 on (a facilitator never reached: no payment is presented), so a used-up quota answers the x402 402.
  env = await startEmbedded({ X402_PAY_TO: `0x${'5a'.repeat(20)}`, X402_FACILITATOR_URL: 'http://127.0.0.1:9/facilitator' })
  await env.ingestThrough(600)
  const launched = await env.api.deps.tokens.feedAfter(0, Date.now() * 1000, 10_000)
  tokens = launched.tokens
}, 180_000)
afterAll(async () => env?.close())

type IdentifyBody = ReturnType<typeof identifyEndpoint.response.parse>

async function identify(payload: unknown, headers: Record<string, string> = admin, remoteAddress = '127.0.0.1') {
  const res = await env.api.app.inject({ method: 'POST', url: '/identify', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload), remoteAddress })
  return { status: res.statusCode, headers: res.headers, json: () => res.json() as IdentifyBody & { error?: { code: string } } }
}

const b64 = (buf: Buffer) => buf.toString('base64')
/** Four significant digits, as a chart's price label shows it. */
const label = (priceWeth: string) => Number(Number(priceWeth).toPrecision(4)).toFixed(12).replace(/0+$/, '')

function uniqueTicker(): TokenRecord {
  const bySymbol = new Map<string, TokenRecord[]>()
  for (const t of tokens) bySymbol.set(t.symbol, [...(bySymbol.get(t.symbol) ?? []), t])
  const t = tokens.find((x) => x.quote && /^[A-Z]{3,6}$/.test(x.symbol) && bySymbol.get(x.symbol)!.length === 1)
  if (!t) throw new Error('the simulated world has no priced token with a unique all-capitals symbol')
  return t
}

describe('POST /identify', () => {
  it('a visible ticker wins: the chart of a tracked token is matched by its ticker', { timeout: 60_000 }, async () => {
    const t = uniqueTicker()
    const res = await identify({ image: b64(await renderChart({ title: `${t.symbol} / WETH  5m`, price: label(t.quote!.priceWeth) })) })
    expect(res.status).toBe(200)
    const body = identifyEndpoint.response.parse(res.json())
    expect(body.data.read.tickers).toContain(t.symbol)
    expect(body.data).toMatchObject({ found: true, confidence: 0.9, cross_chain: null, match: { token: t.token, symbol: t.symbol, method: 'ticker', chain_id: 4663 } })
    expect(body.chain_id).toBe(4663)
  })

  it('without a ticker, the price band: every token named is priced within 20% of the price read', { timeout: 60_000 }, async () => {
    const t = tokens.find((x) => x.quote && Number(x.quote.priceWeth) > 0)!
    const price = label(t.quote!.priceWeth)
    const body = (await identify({ image: b64(await renderChart({ price })) })).json()
    expect(body.data.read.prices).toContain(Number(price))
    expect(body.data.found).toBe(true)
    const named = [body.data.match!, ...body.data.alternates]
    expect(named.map((m) => m.token)).toContain(t.token)
    for (const m of named) {
      expect(m.method).toBe('price_band')
      const fits = [Number(m.price_weth), m.price_usd ?? Infinity].some((p) => Math.abs(p - Number(price)) <= PRICE_BAND * Number(price))
      expect(fits, `${m.token} at ${m.price_weth} WETH / ${m.price_usd} USD vs ${price}`).toBe(true)
    }
    expect(body.data.confidence).toBeLessThanOrEqual(0.6)
  })

  it('a chart of another chain is resolved there, not force-matched', { timeout: 60_000 }, async () => {
    const t = uniqueTicker()
    // even with a ticker that exists here: a /SOL pair on Raydium is a Solana chart
    const body = (await identify({ image: b64(await renderChart({ title: `${t.symbol} / SOL  Raydium`, price: '2.41' })) })).json()
    expect(body.data).toMatchObject({ found: false, match: null, confidence: 0, alternates: [], cross_chain: { chain: 'solana', ticker: t.symbol } })
  })

  it('reads a JPEG sent as a data: URL (its type wins over media_type)', { timeout: 60_000 }, async () => {
    const t = uniqueTicker()
    const jpeg = await renderChart({ title: `$${t.symbol}  1h`, format: 'jpeg' })
    const body = (await identify({ image: `data:image/jpeg;base64,${b64(jpeg)}`, media_type: 'image/png' })).json()
    expect(body.data.match).toMatchObject({ token: t.token, method: 'ticker' })
  })

  it('refuses bad images with 400, 413 or 415, before they spend a free call', { timeout: 60_000 }, async () => {
    const png = await renderChart({ title: 'NOTHING HERE' })
    const ip = '203.0.113.61'
    const cases: Array<[unknown, number, string]> = [
      [{ image: 'not base64!' }, 400, 'invalid_parameter'],
      [{ image: b64(png), media_type: 'image/jpeg' }, 415, 'unsupported_media_type'],
      [{ image: `data:text/plain;base64,${b64(Buffer.from('hello'))}` }, 415, 'unsupported_media_type'],
      [{ image: b64(Buffer.concat([png.subarray(0, 8), Buffer.alloc(5 * 1024 * 1024 + 16)])) }, 413, 'payload_too_large'],
      [{}, 400, 'invalid_parameter'],
    ]
    for (const [payload, status, code] of cases) {
      const res = await identify(payload, {}, ip)
      expect(res.status, JSON.stringify(res.json())).toBe(status)
      expect(res.json().error!.code).toBe(code)
    }
    // all five free calls are still there
    for (let i = 0; i < 5; i++) expect((await identify({ image: b64(png) }, {}, ip)).status, `free call ${i + 1}`).toBe(200)
    expect((await identify({ image: b64(png) }, {}, ip)).status).toBe(402)
  })

  it('an image that passes the checks but cannot be decoded answers 415, and the reader keeps working', { timeout: 60_000 }, async () => {
    const corrupt = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)])
    const bad = await identify({ image: b64(corrupt) })
    expect(bad.status).toBe(415)
    expect(bad.json().error!.code).toBe('unsupported_media_type')
    const t = uniqueTicker()
    const ok = (await identify({ image: b64(await renderChart({ title: `${t.symbol} / WETH` })) })).json()
    expect(ok.data.match).toMatchObject({ token: t.token })
  })

  it('is free 5 times a day per IP, then answers 402 with the x402 requirements for 0.02', { timeout: 60_000 }, async () => {
    const png = await renderChart({ price: '1.5' })
    const ip = '203.0.113.62'
    for (let i = 0; i < 5; i++) expect((await identify({ image: b64(png) }, {}, ip)).status, `call ${i + 1}`).toBe(200)
    const over = await identify({ image: b64(png) }, {}, ip)
    expect(over.status).toBe(402)
    const required = decodePaymentRequiredHeader(String(over.headers['payment-required']))
    expect(required.accepts[0]).toMatchObject({ amount: '20000', network: 'eip155:8453' })
    expect((await identify({ image: b64(png) }, {}, '203.0.113.63')).status).toBe(200)
  })
})
