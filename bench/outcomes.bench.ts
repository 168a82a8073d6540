import { createApiServer } from '../bin/serve-api.ts'
import { queryRows } from '../core/clickhouse.ts'
import { startEmbedded, TEST_ADMIN_TOKEN } from '../test/setup/embedded.ts'
import { buildOutcomeWorld } from '../test/setup/outcome-world.ts'
import { readRecordedOutcomes, referenceBasketData, referenceProofData } from '../test/setup/outcomes-reference.ts'
import type { BenchResult } from './result.ts'

/**
 * GET /basket and GET /proof.json cold (a fresh API server per request: nothing cached), served
 * from migration 026's aggregates (outcome_rollup, basket_closes, the newest members by key),
 * against the named baseline measured in the same run on the same data: the full recompute the
 * service did before, every recorded verdict and mark read and basketOf / proofOf over them
 * (test/setup/outcomes-reference.ts). Two sizes of recorded launches (default 20,000 and
 * 200,000 verdicts, with 2.1 marks each), written with INSERT … SELECT FROM numbers() through the
 * views as in production (test/setup/outcome-world.ts). Prints how each cost grows between sizes.
 */
const CHAIN = 4663
const T0 = 1_700_000_000 - (1_700_000_000 % 86_400)
const SIZES = (process.env.BENCH_OUTCOMES_SIZES ?? '20000,200000').split(',').map(Number)
const REPS = Number(process.env.BENCH_OUTCOMES_REPS ?? 7)

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const r2 = (x: number) => Math.round(x * 100) / 100

export async function benchOutcomes(): Promise<BenchResult[]> {
  const env = await startEmbedded({ LOG_LEVEL: 'warn' }, { social: false })
  const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
  try {
    const measured: Array<{ size: number; marks: number; ours: Record<string, number>; base: Record<string, number> }> = []
    for (const size of SIZES) {
      for (const t of ['launch_verdicts', 'launch_marks', 'outcome_rollup', 'basket_closes']) await env.rt.ch.command({ query: `TRUNCATE TABLE ${t}` })
      await buildOutcomeWorld(env.rt.ch, CHAIN, T0 + size, size)
      const [{ n }] = (await queryRows<{ n: string }>(env.rt.ch, `SELECT count() AS n FROM launch_marks WHERE chain_id = ${CHAIN}`)) as [{ n: string }]
      const ours: Record<string, number> = {}
      const base: Record<string, number> = {}
      for (const url of ['/basket', '/proof.json']) {
        const times: number[] = []
        for (let i = 0; i < REPS; i++) {
          const api = await createApiServer(env.rt, { pollMs: 0 })
          try {
            const t = performance.now()
            const res = await api.app.inject({ method: 'GET', url, headers })
            times.push(performance.now() - t)
            if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`)
          } finally {
            await api.close()
          }
        }
        ours[url] = p50(times)
        const baseTimes: number[] = []
        for (let i = 0; i < REPS; i++) {
          const t = performance.now()
          const { verdicts, marks } = await readRecordedOutcomes(env.rt.ch, CHAIN)
          JSON.stringify(url === '/basket' ? referenceBasketData(verdicts, marks) : referenceProofData(verdicts, marks))
          baseTimes.push(performance.now() - t)
        }
        base[url] = p50(baseTimes)
      }
      measured.push({ size, marks: Number(n), ours, base })
    }
    const results: BenchResult[] = []
    const first = measured[0]!
    for (const m of measured) {
      for (const url of ['/basket', '/proof.json']) {
        const growth = m === first ? '' : `; from ${first.size.toLocaleString('en-US')} verdicts (${(m.size / first.size).toFixed(0)}x): ours x${(m.ours[url]! / first.ours[url]!).toFixed(2)}, baseline x${(m.base[url]! / first.base[url]!).toFixed(2)}`
        results.push({
          name: `outcomes: GET ${url} cold p50, ${m.size.toLocaleString('en-US')} recorded verdicts + ${m.marks.toLocaleString('en-US')} marks`,
          baseline: 'full recompute: every recorded verdict and mark read, basketOf / proofOf in Node (the path before migration 026), same data, same run',
          ours: { value: r2(m.ours[url]!), unit: 'ms' },
          base: { value: r2(m.base[url]!), unit: 'ms' },
          ratio: m.base[url]! / m.ours[url]!,
          notes: `p50 of ${REPS}, each on a fresh API server (no cache), in-process inject${growth}`,
        })
      }
    }
    return results
  } finally {
    await env.close()
  }
}
