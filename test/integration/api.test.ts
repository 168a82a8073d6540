import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { catalog } from '../../api/catalog/index.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'
import { requirePromtool } from '../setup/services.ts'
import { specEndpoints } from '../setup/spec.ts'

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
let env: Embedded

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '100' })
  await env.ingestThrough(400)
})
afterAll(async () => env?.close())

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await env.api.app.inject({ method: 'GET', url, headers })
  return { status: res.statusCode, headers: res.headers, body: res.body, json: () => res.json() }
}

describe('GET /token/{address}', () => {
  it('/token/{address} agrees with a direct SQL over the raw swaps', async () => {
    const tokens = await queryRows<{ token: string; swaps: string; volume: string; traders: string }>(
      env.rt.ch,
      `SELECT token, count() AS swaps, sum(weth_in + weth_out) AS volume, uniqExact(trader) AS traders
       FROM swaps FINAL GROUP BY token ORDER BY swaps DESC LIMIT 5`,
    )
    expect(tokens.length).toBeGreaterThan(0)
    for (const t of tokens) {
      const res = await get(`/token/${t.token}`, admin)
      expect(res.status).toBe(200)
      const { data, measured_through_block, chain_id } = res.json()
      expect(chain_id).toBe(4663)
      expect(measured_through_block).toBe(400)
      expect(data.found).toBe(true)
      expect(data.swaps).toBe(Number(t.swaps))
      expect(data.weth_volume_wei).toBe(t.volume)
      expect(data.unique_traders).toBe(Number(t.traders))
    }
  })

  it('/token/{address} quotes the latest swap, with FDV in WETH and in USD at that minute', async () => {
    const [t] = await queryRows<{ token: string }>(env.rt.ch, 'SELECT token FROM swaps GROUP BY token ORDER BY count() DESC LIMIT 1')
    const [last] = await queryRows<{ weth: string; amount: string; block_time: string; block_number: string }>(
      env.rt.ch,
      `SELECT weth_in + weth_out AS weth, token_in + token_out AS amount, block_time, block_number FROM swaps
       WHERE token = {t:String} AND token_in + token_out > 0 ORDER BY block_number DESC, log_index DESC LIMIT 1`,
      { t: t!.token },
    )
    const [supply] = await queryRows<{ s: string }>(env.rt.ch, 'SELECT sum(minted) - sum(burned) AS s FROM token_supply WHERE token = {t:String}', { t: t!.token })
    const [candle] = await queryRows<{ close: string }>(
      env.rt.ch,
      "SELECT toString(close) AS close FROM price_candles WHERE pair = 'ETH/USD' AND minute <= {at:DateTime} ORDER BY minute DESC LIMIT 1",
      { at: last!.block_time.replace('T', ' ').replace('Z', '') },
    )
    await env.ingestThrough(env.processor.watermark())
    const { data } = (await get(`/token/${t!.token}`, admin)).json()
    expect(data.price.observed_block).toBe(Number(last!.block_number))
    expect(data.price.observed_at).toBe(last!.block_time)
    const fdv = (BigInt(supply!.s) * BigInt(last!.weth)) / BigInt(last!.amount)
    expect(data.price.fdv_weth_wei).toBe(fdv.toString())
    expect(data.price.eth_usd).toBe(Number(candle!.close))
    expect(data.price.fdv_usd).toBeCloseTo((Number(fdv) / 1e18) * Number(candle!.close), 0)
  })

  it('/token/{address} names the deployer from the contract creation', async () => {
    const [c] = await queryRows<{ address: string; deployer: string; block_number: string }>(env.rt.ch, 'SELECT address, deployer, block_number FROM contract_creations LIMIT 1')
    const res = await get(`/token/${c!.address.toUpperCase().replace('0X', '0x')}`, admin)
    expect(res.status).toBe(200)
    expect(res.json().data).toMatchObject({ token: c!.address, deployer: c!.deployer, created_block: Number(c!.block_number) })
  })

  it('/token/{address} answers found:false for an unknown token', async () => {
    const res = await get(`/token/0x${'12'.repeat(20)}`, admin)
    expect(res.status).toBe(200)
    expect(res.json().data).toMatchObject({ found: false, swaps: 0, weth_volume_wei: '0', unique_traders: 0 })
  })

  it('/token/{address} answers 400 invalid_address for a malformed address', async () => {
    for (const bad of ['0x123', 'hello', `0x${'zz'.repeat(20)}`, `0x${'ab'.repeat(21)}`]) {
      const res = await get(`/token/${bad}`, admin)
      expect(res.status).toBe(400)
      expect(res.json()).toEqual({
        error: { code: 'invalid_address', message: expect.stringContaining('address'), details: { parameter: 'address', in: 'path', expected: expect.any(String) } },
      })
    }
  })

  it('/token/{address} fails closed with 402 when no payment is presented', async () => {
    const res = await get(`/token/0x${'12'.repeat(20)}`)
    expect(res.status).toBe(402)
    expect(res.json().error.code).toBe('payment_required')
  })
})

describe('GET /stats', () => {
  it('/stats totals equal the raw tables', async () => {
    const res = await get('/stats')
    expect(res.status).toBe(200)
    const [chain] = res.json().data.chains
    const [raw] = await queryRows<Record<string, string>>(
      env.rt.ch,
      `SELECT (SELECT count() FROM swaps FINAL) AS swaps, (SELECT sum(weth_in + weth_out) FROM swaps FINAL) AS volume,
              (SELECT uniqExact(trader) FROM swaps FINAL) AS traders, (SELECT count() FROM contract_creations FINAL) AS launches,
              (SELECT count() FROM chain_blocks FINAL) AS blocks`,
    )
    expect(chain).toMatchObject({
      chain_id: 4663,
      measured_through_block: 400,
      blocks_indexed: Number(raw!.blocks),
      swaps: Number(raw!.swaps),
      weth_volume_wei: raw!.volume,
      unique_traders: Number(raw!.traders),
      tokens_launched: Number(raw!.launches),
    })
    expect(chain.swaps).toBeGreaterThan(50)
  })

  it('/stats grows as more blocks are ingested', async () => {
    const before = (await get('/stats')).json().data.chains[0]
    await env.ingestThrough(500)
    const after = (await get('/stats')).json().data.chains[0]
    expect(after.measured_through_block).toBe(500)
    expect(after.blocks_indexed).toBe(before.blocks_indexed + 100)
    expect(after.swaps).toBeGreaterThan(before.swaps)
    expect(BigInt(after.weth_volume_wei)).toBeGreaterThan(BigInt(before.weth_volume_wei))
  })
})

describe('errors', () => {
  it('an unknown route answers 404 with the error body', async () => {
    const res = await get('/no/such/route')
    expect(res.status).toBe(404)
    expect(res.headers['content-type']).toContain('application/json')
    expect(res.json()).toEqual({ error: { code: 'not_found', message: 'No route GET /no/such/route.' } })
  })

  it('a key in the query string is refused with 400 key_in_url', async () => {
    const res = await get('/stats?api_key=svc_live_abc')
    expect(res.status).toBe(400)
    expect(res.json().error.code).toBe('key_in_url')
  })

  it('every endpoint of the catalog is served: none is left answering 501 not_implemented', async () => {
    const unserved = catalog.filter((e) => !e.handler && !e.mountedBy).map((e) => `${e.method} ${e.path}`)
    expect(unserved).toEqual([])
    const doc = (await get('/openapi.json')).json()
    const with501 = Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)
      .flatMap(([path, ops]) => Object.entries(ops).filter(([, op]) => op.responses?.['501']).map(([m]) => `${m} ${path}`))
    expect(with501).toEqual([])
  })

  it('a POST with a non-JSON body answers 415 unsupported_media_type', async () => {
    const res = await env.api.app.inject({ method: 'POST', url: '/identify', headers: { 'content-type': 'text/csv' }, payload: 'a,b' })
    expect(res.statusCode).toBe(415)
    expect(res.json().error.code).toBe('unsupported_media_type')
  })
})

describe('generated documents', () => {
  it('/openapi.json lists every endpoint of the contract with its price', async () => {
    const doc = (await get('/openapi.json')).json()
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.version).toBe('0.3.0')
    expect(doc.info.description).toContain('0-29 `poor`')
    const spec = specEndpoints()
    expect(spec.length).toBeGreaterThan(45)
    for (const row of spec) {
      const op = doc.paths[row.path]?.[row.method.toLowerCase()]
      expect(op, `${row.method} ${row.path}`).toBeDefined()
      if (row.price) expect(op['x-price-usd'], `${row.method} ${row.path}`).toBe(row.price)
    }
    const tokenOp = doc.paths['/token/{address}'].get
    expect(tokenOp.parameters).toEqual([expect.objectContaining({ name: 'address', in: 'path', required: true })])
    expect(tokenOp.responses['400']).toBeDefined()
    expect(tokenOp.responses['402']).toBeDefined()
    const feedOp = doc.paths['/feed/new'].get
    expect(feedOp.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['limit', 'min_score', 'since', 'tier', 'wait'])
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toContain('invalid_address')
  })

  it('/.well-known/x402 lists every paid and mixed endpoint with its price (catalog version 2)', async () => {
    const cat = (await get('/.well-known/x402')).json()
    expect(cat.version).toBe(2)
    expect(cat.network).toBe('eip155:8453')
    const byPath = new Map(cat.resources.map((r: { method: string; path: string; price: string }) => [`${r.method} ${r.path}`, r]))
    for (const row of specEndpoints().filter((r) => r.price)) {
      expect(byPath.get(`${row.method} ${row.path}`), `${row.method} ${row.path}`).toMatchObject({ price: row.price })
    }
    expect(byPath.get('GET /report/{token}')).toMatchObject({ price: '0.05', freePerDay: 25, amount: '50000' })
    expect(byPath.get('POST /identify')).toMatchObject({ price: '0.02', freePerDay: 5 })
  })

  it('/docs serves the interactive reference', async () => {
    const res = await env.api.app.inject({ method: 'GET', url: '/docs/' })
    expect(res.statusCode).toBe(200)
    expect(res.body).toContain('swagger')
    const json = await get('/docs/json')
    expect(json.json().info.version).toBe('0.3.0')
  })
})

describe('operations', () => {
  it('/health reports every component ready', async () => {
    const res = await get('/health')
    expect(res.status).toBe(200)
    expect(res.json()).toMatchObject({ status: 'ok', components: { clickhouse: 'ok', bus: 'ok', store: 'ok' } })
  })

  it('/metrics exposes ingest, lag, batch and request metrics', async () => {
    await get('/stats')
    const text = (await get('/metrics')).body
    expect(text).toMatch(/svc_ingest_rows_total\{table="swaps"\} \d+/)
    expect(text).toMatch(/svc_batch_duration_seconds_count\{consumer="chain-4663"\} \d+/)
    expect(text).toContain('svc_bus_lag_messages')
    expect(text).toContain('svc_ingest_rows_per_second')
    expect(text).toMatch(/svc_http_request_duration_seconds_count\{route="\/stats"\} \d+/)
    expect(text).toMatch(/svc_measured_through_block\{chain="4663"\} \d+/)
    // prom-client's process metrics, the chain's lag in blocks and the caches' lookups.
    for (const name of ['svc_nodejs_eventloop_lag_p99_seconds', 'svc_nodejs_heap_size_used_bytes', 'svc_nodejs_gc_duration_seconds_bucket', 'svc_nodejs_active_handles', 'svc_process_cpu_seconds_total']) {
      expect(text).toContain(name)
    }
    expect(text).toMatch(/svc_consumer_step_duration_seconds_count\{consumer="chain-4663",step="chain-writer"\} [1-9]/)
    expect(text).toMatch(/svc_cache_lookups_total\{cache="[a-z_]+",result="hit"\} [1-9]/)
    expect(text).toContain('svc_ingest_lag_blocks')
  })

  it('/metrics passes `promtool check metrics` without a warning (_total only on counters)', async () => {
    await get('/stats')
    const text = (await get('/metrics')).body
    expect(text).toContain('# TYPE svc_nodejs_active_handles gauge')
    // promtool prints each problem and exits non-zero (3 for lint problems) when it finds any.
    const child = spawnSync(requirePromtool(), ['check', 'metrics'], { input: text, encoding: 'utf8' })
    expect(`${child.stdout}${child.stderr}`).toBe('')
    expect(child.status).toBe(0)
  })
})

describe('GET /search and /badge', () => {
  it('/search ranks exact symbol matches first and warns when tokens share the symbol', async () => {
    const [dup] = await queryRows<{ symbol: string; n: string }>(
      env.rt.ch,
      "SELECT symbol, count() AS n FROM contract_creations WHERE symbol != '' GROUP BY symbol HAVING n > 1 ORDER BY n DESC, symbol LIMIT 1",
    )
    expect(dup).toBeDefined()
    const res = (await get(`/search?q=${encodeURIComponent('$' + dup!.symbol.toLowerCase())}`)).json().data
    const exact = res.results.filter((r: { match: string }) => r.match === 'symbol')
    expect(exact.length).toBe(Number(dup!.n))
    expect(res.results.slice(0, exact.length).every((r: { match: string }) => r.match === 'symbol')).toBe(true)
    expect(res.warnings).toEqual([expect.objectContaining({ code: 'symbol_collision', symbol: dup!.symbol, tokens: Number(dup!.n) })])
    const [one] = await queryRows<{ address: string }>(env.rt.ch, 'SELECT address FROM contract_creations LIMIT 1')
    const byAddress = (await get(`/search?q=${one!.address}`)).json().data
    expect(byAddress.results[0]).toMatchObject({ token: one!.address, match: 'address' })
  })

  it('/badge/{token} is a well-formed SVG showing the deployer band', async () => {
    const [t] = await queryRows<{ token: string }>(env.rt.ch, 'SELECT token FROM launches LIMIT 1')
    const res = await env.api.app.inject({ method: 'GET', url: `/badge/${t!.token}` })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8')
    expect(res.body).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*>.*<\/svg>$/)
    expect(res.body).toMatch(/(poor|weak|mixed|proven|elite) \d+/)
    const unknown = await env.api.app.inject({ method: 'GET', url: `/badge/0x${'ab'.repeat(20)}` })
    expect(unknown.body).toContain('>unknown<')
  })
})
