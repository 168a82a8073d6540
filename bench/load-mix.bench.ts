import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import autocannon from 'autocannon'
import { queryRows } from '../core/clickhouse.ts'
import { startPaidService } from './paid-service.ts'
import type { BenchResult } from './result.ts'

const SECONDS = Number(process.env.LOAD_SECONDS ?? 8)
const X402_CALLS = Number(process.env.LOAD_X402_CALLS ?? 150)

type Options = Parameters<typeof autocannon>[0]
type Result = Awaited<ReturnType<typeof autocannon>>

/** Per connection: the feed cursor it follows. */
interface Cursor {
  since?: string
}

interface ClassRun {
  name: string
  what: string
  options: Omit<Options, 'url'> & { path: string }
}

/**
 * The load mix (`npm run bench -- load`): on one embedded service with the local payments
 * chain, five classes of callers run at the same time under autocannon: free calls, paid calls
 * with a subscription key, x402-paid calls (each with its own signed authorization, settled on
 * the chain), feed polling that follows next_since per connection, and MCP tool calls. Each is
 * reported as requests/s, p50/p99/p99.9 and errors in the mix and alone, against GET /health
 * alone in the same run.
 * In the embedded mode every class shares one event loop and chDB answers on it: the mix's
 * latencies are those of one process serving all of them.
 */
export async function benchLoadMix(): Promise<BenchResult[]> {
  const { env, base, key, payer, close } = await startPaidService(400)
  try {
    const tokens = (await queryRows<{ token: string }>(env.rt.ch, 'SELECT token FROM launches ORDER BY visible_at LIMIT 50')).map((r) => r.token)
    if (tokens.length < 10) throw new Error(`only ${tokens.length} launches ingested`)

    // x402: authorizations signed beforehand, one per call (each is spent once).
    const client = payer(2)
    const paidPath = `/token/${tokens[0]}`
    const required = decodePaymentRequiredHeader((await fetch(base + paidPath)).headers.get('payment-required')!)
    // Authorizations are valid for a short window: each round signs its own just before it.
    const signatures: string[] = []
    let signed = 0
    const sign = async () => {
      signatures.length = 0
      for (let i = 0; i < X402_CALLS; i++) signatures.push(encodePaymentSignatureHeader(await client.createPaymentPayload(required)))
      signed += X402_CALLS
    }

    const keyed = { 'x-svc-key': key }
    let tokenTurn = 0
    const mcpBody = (id: number) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'svc_token', arguments: { address: tokens[id % tokens.length] } } })
    const classes: ClassRun[] = [
      { name: 'free', what: 'GET /stats and /search, no key', options: { path: '/stats', connections: 8, requests: [{ path: '/stats' }, { path: '/search?q=pepe' }] } },
      {
        name: 'paid with a key',
        what: 'GET /token/{address} over 50 launched tokens, x-svc-key',
        options: { path: paidPath, connections: 8, headers: keyed, requests: [{ setupRequest: (req) => ({ ...req, path: `/token/${tokens[tokenTurn++ % tokens.length]}` }) }] },
      },
      {
        name: 'x402-paid',
        what: `GET /token/{address} paid per call over x402 (${X402_CALLS} authorizations, verified and settled on the local chain)`,
        options: {
          path: paidPath,
          connections: 4,
          amount: X402_CALLS,
          requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'payment-signature': signatures.pop() ?? 'exhausted' } }) }],
        },
      },
      {
        name: 'feed polling',
        what: 'GET /feed/new (realtime, x-svc-key) following next_since per connection',
        options: {
          path: '/feed/new',
          connections: 8,
          headers: keyed,
          requests: [
            {
              setupRequest: (req, context) => {
                const since = (context as Cursor).since
                return { ...req, path: since ? `/feed/new?limit=20&since=${encodeURIComponent(since)}` : '/feed/new?limit=20' }
              },
              onResponse: (status, body, context) => {
                const c = context as Cursor
                if (status === 200) c.since = (JSON.parse(body) as { data: { next_since: string | null } }).data.next_since ?? c.since
              },
            },
          ],
        },
      },
      {
        name: 'MCP tool calls',
        what: 'POST /mcp tools/call svc_token, x-svc-key',
        options: {
          path: '/mcp',
          connections: 4,
          method: 'POST',
          headers: { ...keyed, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, body: mcpBody(tokenTurn++) }) }],
        },
      },
    ]

    // Every class answers 200 once before the load (a wrong setup would only show as errors).
    const first = await Promise.all([
      fetch(`${base}/stats`),
      fetch(base + paidPath, { headers: keyed }),
      fetch(`${base}/feed/new`, { headers: keyed }),
      fetch(`${base}/mcp`, { method: 'POST', headers: { ...keyed, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: mcpBody(0) }),
    ])
    for (const r of first) if (r.status !== 200) throw new Error(`${r.url}: ${r.status} ${await r.text()}`)

    const run = (path: string, options: Omit<Options, 'url'>): Promise<Result> =>
      autocannon({ url: base + path, duration: SECONDS, ...options } as Options)
    // The baseline alone, each class alone, then the mix at once.
    const health = await run('/health', { connections: 8 })
    const alone: Result[] = []
    for (const c of classes) {
      if (c.name === 'x402-paid') await sign()
      alone.push(await run(c.options.path, c.options))
    }
    await sign()
    const results = await Promise.all(classes.map((c) => run(c.options.path, c.options)))
    const used = signed - signatures.length

    const statuses = (r: Result) =>
      Object.entries(r.statusCodeStats ?? {})
        .filter(([code]) => !code.startsWith('2'))
        .map(([code, v]) => `${code}x${(v as { count: number }).count}`)
        .join(' ')
    const fmt = (r: Result) =>
      `p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, p99.9 ${r.latency.p99_9} ms; ${r.requests.total} requests, ${r.non2xx} non-2xx${r.non2xx ? ` (${statuses(r)})` : ''}, ${r.errors} errors, ${r.timeouts} timeouts`
    return classes.map((c, i) => {
      const r = results[i]!
      return {
        name: `load mix: ${c.name} (${c.what}), ${c.options.connections} connections, all five classes at once`,
        baseline: 'GET /health alone, 8 connections, same run',
        ours: { value: Math.round(r.requests.average), unit: 'req/s' },
        base: { value: Math.round(health.requests.average), unit: 'req/s' },
        ratio: r.requests.average / health.requests.average,
        notes: `in the mix: ${fmt(r)}${c.name === 'x402-paid' ? `; ${used} authorizations used in both rounds` : ''} | alone: ${Math.round(alone[i]!.requests.average)} req/s, ${fmt(alone[i]!)} | baseline: ${fmt(health)}`,
      }
    })
  } finally {
    await close()
  }
}
