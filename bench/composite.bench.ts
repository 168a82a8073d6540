import { createApiServer, type ApiServer } from '../bin/serve-api.ts'
import { queryRows } from '../core/clickhouse.ts'
import { startEmbedded, TEST_ADMIN_TOKEN } from '../test/setup/embedded.ts'
import type { BenchResult } from './result.ts'

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!
}
const r2 = (x: number) => Math.round(x * 100) / 100

/**
 * GET /agent/features and GET /pulse/{token} latency, cold (first request for a token: every
 * keyed read goes to chDB) and cached (the same tokens again, same watermark), against GET
 * /token/{address} measured the same way in the same run: the simplest keyed read of the API.
 * Requests are injected in process (no socket, no load generator), one at a time. Each endpoint
 * is measured on an API server of its own over the same data (fresh caches: nothing warmed by
 * another endpoint or by the alerts role), after one warm-up request on a token outside the set.
 * Simulated chain 4663, 2,000 blocks of 2 s.
 */
export async function benchComposite(): Promise<BenchResult[]> {
  const env = await startEmbedded({ LOG_LEVEL: 'warn' })
  try {
    await env.ingestThrough(Number(process.env.BENCH_COMPOSITE_BLOCKS ?? 2000))
    const tokens = (await queryRows<{ token: string }>(env.rt.ch, 'SELECT token FROM launches FINAL ORDER BY block_number DESC, token')).map((r) => r.token)
    const set = tokens.slice(1, Math.min(tokens.length, 101))
    const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
    async function timed(api: ApiServer, url: string): Promise<number> {
      const t = performance.now()
      const res = await api.app.inject({ method: 'GET', url, headers })
      const ms = performance.now() - t
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`)
      return ms
    }
    async function measure(url: (t: string) => string) {
      const api = await createApiServer(env.rt, { pollMs: 0 })
      try {
        await timed(api, url(tokens[0]!))
        const cold: number[] = []
        for (const t of set) cold.push(await timed(api, url(t)))
        const cached: number[] = []
        for (let round = 0; round < 5; round++) for (const t of set) cached.push(await timed(api, url(t)))
        return { cold: { p50: pct(cold, 0.5), p99: pct(cold, 0.99) }, cached: { p50: pct(cached, 0.5), p99: pct(cached, 0.99) }, n: set.length }
      } finally {
        await api.close()
      }
    }
    const features = await measure((t) => `/agent/features?token=${t}`)
    const pulse = await measure((t) => `/pulse/${t}`)
    const token = await measure((t) => `/token/${t}`)
    const results: BenchResult[] = []
    for (const [name, m] of [['GET /agent/features', features], ['GET /pulse/{token}', pulse]] as const) {
      for (const kind of ['cold', 'cached'] as const) {
        results.push({
          name: `composite: ${name} p50 latency, ${kind}`,
          baseline: `GET /token/{address} p50 latency, ${kind}, same run`,
          ours: { value: r2(m[kind].p50), unit: 'ms' },
          base: { value: r2(token[kind].p50), unit: 'ms' },
          ratio: token[kind].p50 / m[kind].p50,
          notes: `p99 ours ${r2(m[kind].p99)} ms vs /token ${r2(token[kind].p99)} ms; ${m.n} tokens${kind === 'cached' ? ' x 5 rounds' : ' (first request each)'}; in-process inject, sequential`,
        })
      }
    }
    return results
  } finally {
    await env.close()
  }
}
