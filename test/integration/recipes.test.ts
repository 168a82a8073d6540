import { createHash } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { catalog } from '../../api/catalog/index.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { Address, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import { createMetrics } from '../../core/metrics.ts'
import { generateClusterDdl } from '../../infra/clickhouse/cluster-ddl.ts'
import { createClickHouseSink } from '../../pipelines/sink/clickhouse-sink.ts'
import { migrate, readMigrations, splitStatements, type Migration } from '../../sql/migrate.ts'
import { ANALYST_TABLES, SECRET_TABLES } from '../../sql/table-access.ts'
import { freshChDB } from '../setup/chdb.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'

/**
 * docs/architecture.md's recipes, done: each test follows one recipe's steps with a made-up
 * example and checks what the recipe promises, so a recipe that stops being true fails here.
 * (The decoder and consumer recipes: recipes-pipeline.test.ts.)
 */

describe('recipe: adding an endpoint', () => {
  // Step 1: a file in a product's folder exporting defineEndpoint<Uses<...>>()({...}).
  const tokenNameEndpoint = defineEndpoint<Uses<'tokens'>>()({
    method: 'GET',
    path: '/recipe/token-name/{address}',
    summary: "A token's name",
    description: 'The name and symbol of a token, from its kept record.',
    tags: ['token'],
    params: z.object({ address: Address }),
    response: z.object({ data: z.object({ found: z.boolean(), name: z.string().nullable(), symbol: z.string().nullable() }), ...Measured }),
    access: { kind: 'paid', price: '0.003' },
    tool: { name: 'svc_recipe_token_name' },
    // Step 2: read by key from kept state.
    async handler({ params, deps }) {
      const token = await deps.tokens.token(params.address)
      return {
        data: { found: token !== undefined, name: token?.name ?? null, symbol: token?.symbol ?? null },
        chain_id: deps.tokens.chainId,
        measured_through_block: deps.tokens.measuredThrough(),
      }
    },
  })

  let env: Embedded
  let base: string
  let token: { token: string; name: string }

  beforeAll(async () => {
    // Step 4: listed in the catalog; nothing else is registered.
    env = await startEmbedded({}, { catalog: [...catalog, tokenNameEndpoint] as typeof catalog })
    await env.ingestThrough(150)
    base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
    ;[token] = await queryRows<{ token: string; name: string }>(env.rt.ch, "SELECT token, name FROM token_state WHERE name != '' ORDER BY token LIMIT 1")
  })
  afterAll(async () => env?.close())

  const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

  it('the route answers from kept state', async () => {
    expect(token).toBeDefined()
    const res = await env.api.app.inject({ method: 'GET', url: `/recipe/token-name/${token.token}`, headers: admin })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual({ found: true, name: token.name, symbol: expect.any(String) })
  })

  it('input the schema refuses is a 400 before any payment; no payment is a 402 at its price', async () => {
    const bad = await env.api.app.inject({ method: 'GET', url: "/recipe/token-name/0xnot'an-address" })
    expect(bad.statusCode).toBe(400)
    const unpaid = await env.api.app.inject({ method: 'GET', url: `/recipe/token-name/${token.token}` })
    expect(unpaid.statusCode).toBe(402)
  })

  it('/openapi.json and /.well-known/x402 document it', async () => {
    const doc = (await env.api.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    expect(doc.paths['/recipe/token-name/{address}']?.get?.summary).toBe("A token's name")
    const x402 = (await env.api.app.inject({ method: 'GET', url: '/.well-known/x402' })).json()
    expect(x402.resources).toContainEqual(expect.objectContaining({ method: 'GET', path: '/recipe/token-name/{address}', price: '0.003' }))
  })

  it('the MCP server has its tool, answering what the route answers', async () => {
    const { key } = await env.api.deps.keys.create('founders')
    const client = new Client({ name: 'recipe-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-svc-key': key } } }))
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toContain('svc_recipe_token_name')
      const result = await client.callTool({ name: 'svc_recipe_token_name', arguments: { address: token.token } })
      expect((result.structuredContent as { data: unknown }).data).toEqual({ found: true, name: token.name, symbol: expect.any(String) })
    } finally {
      await client.close()
    }
  })
})

describe('recipe: adding a materialized view', () => {
  // Step 1: the target table and its view in a new migration, the next free number.
  const existing = readMigrations()
  const version = Math.max(...existing.map((m) => m.version)) + 1
  const text = `
CREATE TABLE IF NOT EXISTS recipe_trader_swaps
(
    chain_id UInt32 COMMENT 'chain id',
    trader   String COMMENT 'the swap sender',
    swaps    SimpleAggregateFunction(sum, UInt64) COMMENT 'swaps the trader sent'
)
ENGINE = AggregatingMergeTree
ORDER BY (chain_id, trader)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Swaps per trader (a recipe example). Key: (chain_id, trader)';

CREATE MATERIALIZED VIEW IF NOT EXISTS recipe_trader_swaps_mv TO recipe_trader_swaps AS
SELECT chain_id, trader, count() AS swaps FROM swaps GROUP BY chain_id, trader;
`
  const recipe: Migration = {
    version,
    name: `${String(version).padStart(3, '0')}_recipe_trader_swaps`,
    checksum: createHash('sha256').update(text).digest('hex'),
    statements: splitStatements(text),
  }

  let db: Awaited<ReturnType<typeof freshChDB>>
  beforeAll(async () => {
    db = await freshChDB()
    await migrate(db.ch, [...existing, recipe])
  })
  afterAll(async () => db?.close())

  const swap = (logIndex: number, trader: string) => ({
    chain_id: 4663, block_number: 1, log_index: logIndex, tx_hash: '0x01', pool: '0xpool', protocol: 'v2', token: '0xtoken', trader,
    token_in: '0', token_out: '1', weth_in: '1', weth_out: '0', block_time: '2026-01-01 00:00:00',
  })

  it('folds raw rows as they arrive, and a redelivered batch is not counted twice', async () => {
    const sink = createClickHouseSink(db.ch, createMetrics({ processMetrics: false }))
    const batch: Array<[string, Record<string, unknown>[]]> = [['swaps', [swap(0, '0xa'), swap(1, '0xa'), swap(2, '0xb')]]]
    await sink.insertBatch('recipe-batch-1', batch)
    await sink.insertBatch('recipe-batch-1', batch)
    const rows = await queryRows<{ trader: string; swaps: string }>(db.ch, 'SELECT trader, sum(swaps) AS swaps FROM recipe_trader_swaps GROUP BY trader ORDER BY trader')
    expect(rows.map((r) => [r.trader, Number(r.swaps)])).toEqual([['0xa', 2], ['0xb', 1]])
  })

  it('step 2: until it is classified, the access lists miss exactly the new table', async () => {
    const stored = await queryRows<{ name: string }>(db.ch, "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine != 'MaterializedView'")
    const classified = new Set<string>([...ANALYST_TABLES, ...SECRET_TABLES])
    expect(stored.map((t) => t.name).filter((t) => !classified.has(t))).toEqual(['recipe_trader_swaps'])
  })

  it('step 5: the cluster DDL is generated from it', () => {
    const ours = generateClusterDdl([...existing, recipe]).filter((s) => s.migration === recipe.name).map((s) => s.sql)
    expect(ours.some((s) => /CREATE TABLE IF NOT EXISTS recipe_trader_swaps_local ON CLUSTER/.test(s) && /ReplicatedAggregatingMergeTree/.test(s))).toBe(true)
    expect(ours.some((s) => /recipe_trader_swaps_mv/.test(s))).toBe(true)
  })
})
