import autocannon from 'autocannon'
import Fastify from 'fastify'
import { queryRows } from '../core/clickhouse.ts'
import { startEmbedded, TEST_ADMIN_TOKEN } from '../test/setup/embedded.ts'
import type { BenchResult } from './result.ts'

interface Load {
  rps: number
  p99: number
  errors: number
}

async function load(url: string, headers: Record<string, string>, seconds: number, overallRate?: number): Promise<Load> {
  const r = await autocannon({ url, headers, connections: 20, duration: seconds, pipelining: 1, ...(overallRate ? { overallRate } : {}) })
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.non2xx }
}

/**
 * GET /token/{address} under load (autocannon, 20 connections) against a bare Fastify route
 * that returns a body of the same size from memory, on the same machine and in the same run.
 * The load generator shares the process and the 2 cores with the server in both cases.
 */
export async function benchApi(seconds = Number(process.env.BENCH_API_SECONDS ?? 8)): Promise<BenchResult> {
  const env = await startEmbedded({ LOG_LEVEL: 'warn' })
  const bare = Fastify({ logger: false })
  try {
    await env.ingestThrough(2000)
    const [top] = await queryRows<{ token: string }>(env.rt.ch, 'SELECT token FROM swaps GROUP BY token ORDER BY count() DESC LIMIT 1')
    const base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
    const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
    const sample = await (await fetch(`${base}/token/${top!.token}`, { headers })).text()
    bare.get('/token/:address', async (_req, reply) => reply.type('application/json').send(sample))
    const bareBase = await bare.listen({ port: 0, host: '127.0.0.1' })

    await load(`${base}/token/${top!.token}`, headers, 2) // warm-up
    const ours = await load(`${base}/token/${top!.token}`, headers, seconds)
    const baseline = await load(`${bareBase}/token/${top!.token}`, {}, seconds)
    // The latency a paying client sees at a steady 1,000 requests/s (not at saturation).
    const steady = await load(`${base}/token/${top!.token}`, headers, seconds, 1000)
    return {
      name: 'api: GET /token/{address} requests/s under load (autocannon, 20 connections)',
      baseline: 'a bare Fastify route answering the same body from memory',
      ours: { value: Math.round(ours.rps), unit: 'req/s' },
      base: { value: Math.round(baseline.rps), unit: 'req/s' },
      ratio: ours.rps / baseline.rps,
      notes: `p99 ours ${ours.p99} ms vs bare ${baseline.p99} ms at saturation; at a steady 1,000 req/s ours p99 ${steady.p99} ms (${Math.round(steady.rps)} req/s served); errors/non-2xx ours ${ours.errors + steady.errors}, bare ${baseline.errors}; ${seconds} s each; body ${sample.length} bytes`,
    }
  } finally {
    await bare.close()
    await env.close()
  }
}
