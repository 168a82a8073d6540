import { createRuntime } from '../bin/runtime.ts'
import { createApiServer } from '../bin/serve-api.ts'
import { loadConfig } from '../core/config.ts'
import { TEST_ADMIN_TOKEN } from '../test/setup/embedded.ts'
import { tempDir } from '../test/setup/temp.ts'
import type { BenchResult } from './result.ts'

/**
 * /arc/feed/new at 100,000 chain-5042 launches (issue 15). The launches, their activity and the
 * venue counts are built directly in ClickHouse with INSERT … SELECT from numbers(), through the
 * same materialized views (launch order, per venue, per deployer, per symbol). Every request
 * is a cache miss (a distinct before_block cursor, or filter), measured through the API
 * (`app.inject`: routing, validation, access, handler, serialization). The baseline, measured in
 * this run on the same data: the same pages from one query joining the token-ordered launches
 * with every token's activity aggregated over all its rows (a pass over history per request).
 */

const LAUNCHES = Number(process.env.BENCH_ARC_LAUNCHES ?? 100_000)
const REQUESTS = Number(process.env.BENCH_ARC_REQUESTS ?? 300)
const PADS = ['0x' + 'a1'.repeat(20), '0x' + 'a2'.repeat(20), '0x' + 'a3'.repeat(20), '0x' + 'a4'.repeat(20)]
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const addr = (prefix: string, expr: string) => `concat('0x${prefix}', leftPad(lower(hex(toUInt64(${expr}))), 39, '0'))`

export async function benchArc(): Promise<BenchResult> {
  const dir = tempDir()
  const config = loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'warn', SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN, CHAIN_5042_LAUNCHPADS: PADS.join(','), SIMULATOR: 'off' })
  const rt = await createRuntime(config, 'bench-arc')
  const api = await createApiServer(rt, { pollMs: 0 })
  try {
    // Two launches per block; launch k goes through pad k % 5 (4: direct); deployers repeat every 10,000.
    const blocks = Math.ceil(LAUNCHES / 2)
    const via = `arrayElement(['${PADS.join("','")}', ''], (number % 5) + 1)`
    const built = performance.now()
    await rt.ch.command({
      query: `INSERT INTO chain_blocks (chain_id, number, hash, parent_hash, timestamp, log_count)
              SELECT 5042, number, ${addr('b', 'number')}, ${addr('b', 'number - 1')}, toDateTime(1735689600 + number * 2), 0 FROM numbers(${blocks + 1})`,
    })
    await rt.ch.command({
      query: `INSERT INTO arc_launches
              SELECT 5042, ${addr('c', 'number')}, intDiv(number, 2) + 1, number % 2, ${addr('e', 'number')}, toDateTime(1735689600 + (intDiv(number, 2) + 1) * 2),
                     ${addr('d', 'number % 10000')}, ${via}, if(number % 5 = 4, 'direct', 'pad'), concat('T', toString(number % 5000)), concat('t', toString(number % 5000)), concat('Token ', toString(number))
              FROM numbers(${LAUNCHES})`,
    })
    // Activity: each token's row at its launch block (the mint) and one later (its transfers), cumulative.
    await rt.ch.command({
      query: `INSERT INTO arc_token_activity
              SELECT 5042, ${addr('c', 'intDiv(number, 2)')}, intDiv(intDiv(number, 2), 2) + 1 + (number % 2) * 7, toDateTime(1735689600 + (intDiv(intDiv(number, 2), 2) + 1 + (number % 2) * 7) * 2),
                     arrayElement(['${PADS.join("','")}', ''], (intDiv(number, 2) % 5) + 1),
                     1 + (number % 2) * (intDiv(number, 2) % 6), (number % 2) * (intDiv(number, 2) % 3),
                     1 + (number % 2) * (intDiv(number, 2) % 6), (number % 2) * (intDiv(number, 2) % 3), toUInt256((number % 2) * 1000000000000000000 * (intDiv(number, 2) % 3)),
                     (number % 2) * (intDiv(intDiv(number, 2), 2) + 8)
              FROM numbers(${2 * LAUNCHES})`,
    })
    for (const [i, v] of [...PADS, '', '*'].entries()) {
      const share = v === '*' ? LAUNCHES : Math.floor(LAUNCHES / 5)
      await rt.ch.command({ query: `INSERT INTO arc_venue_stats VALUES (5042, '${v}', ${blocks}, ${share}, ${Math.floor(share / 2)}, ${Math.min(share, 10000)})` })
      void i
    }
    const buildMs = performance.now() - built
    api.watermarks.advance(5042, blocks, 1)

    async function timeFeed(urls: string[]): Promise<number[]> {
      const out: number[] = []
      for (const url of urls) {
        const t = performance.now()
        const res = await api.app.inject({ method: 'GET', url, headers: admin })
        out.push(performance.now() - t)
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`)
      }
      return out
    }
    const cursors = Array.from({ length: REQUESTS }, (_, i) => 1 + Math.floor(((i * 7919) % REQUESTS) * (blocks / REQUESTS)))
    const urls = cursors.map((c, i) =>
      i % 3 === 0 ? `/arc/feed/new?limit=50&before_block=${c}` : i % 3 === 1 ? `/arc/feed/new?limit=50&via=${PADS[i % 4]}&before_block=${c}` : `/arc/feed/new?limit=50&min_transfers=3&before_block=${c + 1}`,
    )
    await timeFeed(urls.slice(0, 10).map((u) => u.replace("limit=50", "limit=49"))) // warm-up (distinct keys)
    const ours = await timeFeed(urls)
    const hot = await timeFeed(urls.slice(0, 100))

    // Baseline: the same pages (unfiltered, and min_transfers) answered by one query that joins the
    // token-ordered launches with every token's activity aggregated over all its rows: what a
    // per-request pass over the history would cost, without the tables kept per access path.
    const base: number[] = []
    for (const [i, c] of cursors.slice(0, Math.min(60, REQUESTS)).entries()) {
      const t = performance.now()
      await (await rt.ch.query({
        query: `SELECT l.token, l.block_number, l.tx_index, l.via, a.t FROM arc_launches AS l FINAL
                LEFT JOIN (SELECT token, max(cum_transfers) AS t FROM arc_token_activity WHERE chain_id = 5042 GROUP BY token) AS a USING (token)
                WHERE l.chain_id = 5042 AND l.block_number < {c:UInt64} AND a.t >= {min:UInt64}
                ORDER BY l.block_number DESC, l.tx_index DESC, l.token DESC LIMIT 51`,
        query_params: { c, min: i % 2 ? 3 : 0 }, format: 'JSONEachRow',
      })).json()
      base.push(performance.now() - t)
    }
    const kind = (k: number) => ours.filter((_, i) => i % 3 === k)
    const oursP99 = p99(ours)
    const baseP99 = p99(base)
    return {
      name: `/arc/feed/new p99 at ${LAUNCHES.toLocaleString('en-US')} launches (cache misses: cursor, via, min_transfers)`,
      baseline: 'one query per page joining arc_launches with every token\'s activity aggregated over all rows (no tables per access path), query alone',
      ours: { value: Math.round(oursP99 * 10) / 10, unit: 'ms p99' },
      base: { value: Math.round(baseP99 * 10) / 10, unit: 'ms p99' },
      ratio: baseP99 / oursP99,
      notes: `${REQUESTS} requests; p50 ${p50(ours).toFixed(1)} ms; p99 by kind: cursor only ${p99(kind(0)).toFixed(1)} ms, via ${p99(kind(1)).toFixed(1)} ms, min_transfers ${p99(kind(2)).toFixed(1)} ms; cached answers p50 ${p50(hot).toFixed(2)} ms; data built in ${(buildMs / 1000).toFixed(1)} s`,
    }
  } finally {
    await api.close()
    await rt.close()
    dir.cleanup()
  }
}
