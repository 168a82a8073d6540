import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBlackHole, type BlackHole } from '../setup/black-hole.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'
import { freePort, startSvcServer, type SvcServer } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * The operator's doors with ClickHouse down: `svc api` pointed at a server that accepts
 * connections and never answers. A failure that is ClickHouse's absence must read as the
 * retryable 503 dependency_unavailable, never as the caller's mistake.
 */

const ADMIN = 'clickhouse-down-admin-0123'
const TIMEOUT_MS = 1_500
const dir = tempDir()
let hole: BlackHole
let api: SvcServer

beforeAll(async () => {
  hole = await startBlackHole()
  const env = {
    DATA_DIR: dir.path,
    CLICKHOUSE_URL: `http://127.0.0.1:${hole.port}`,
    CLICKHOUSE_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
    SVC_ADMIN_TOKEN: ADMIN,
    LOG_LEVEL: 'fatal',
    KAFKA_BROKERS: '',
    REDIS_URL: '',
  }
  api = await startSvcServer(['api'], await freePort(), env, 60_000, (status) => status === 503)
})
afterAll(async () => {
  await api?.stop()
  await hole?.close()
  dir.cleanup()
})

const asAdmin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }

describe('POST /admin/sql', () => {
  it('answers 503 dependency_unavailable naming clickhouse, within the request timeout', async () => {
    const t0 = performance.now()
    const res = await fetch(`${api.base}/admin/sql`, { method: 'POST', headers: asAdmin, body: JSON.stringify({ query: 'SELECT 1' }), signal: AbortSignal.timeout(10_000) })
    const ms = performance.now() - t0
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('5')
    expect(await res.json()).toMatchObject({ error: { code: 'dependency_unavailable', details: { dependency: 'clickhouse' } } })
    expect(ms).toBeLessThan(TIMEOUT_MS + 1_000)
    expect(api.child.exitCode).toBeNull()
  })
})

describe('MCP tool calls', () => {
  it('a tool whose data is in ClickHouse returns an isError result with our dependency_unavailable body', async () => {
    // The operator token admits /mcp without ClickHouse (a key could not be checked: 503).
    const client = new Client({ name: 'svc-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ADMIN}` } } }))
    try {
      const t0 = performance.now()
      const result = await client.callTool({ name: 'svc_stats', arguments: {} })
      expect(performance.now() - t0).toBeLessThan(TIMEOUT_MS + 1_000)
      expect(result.isError).toBe(true)
      const body = { error: { code: 'dependency_unavailable', details: { dependency: 'clickhouse' } } }
      expect(result.structuredContent).toMatchObject(body)
      const text = (result.content as Array<{ type: string; text: string }>)[0]!.text
      expect(JSON.parse(text)).toMatchObject(body)
      // The cause names hosts and ports: it stays in the server's logs.
      expect(text).not.toContain(String(hole.port))
    } finally {
      await client.close()
    }
  })
})

describe('POST /admin/sql with ClickHouse up', () => {
  let env: Embedded
  beforeAll(async () => {
    env = await startEmbedded()
  })
  afterAll(async () => env?.close())

  it('a query ClickHouse refuses is still 400 invalid_parameter naming the query', async () => {
    const res = await env.api.app.inject({ method: 'POST', url: '/admin/sql', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, payload: { query: 'SELECT no_such_column FROM no_such_table' } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ error: { code: 'invalid_parameter', details: { parameter: 'query' } } })
  })
})
