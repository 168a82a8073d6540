import { queryRows } from '../core/clickhouse.ts'
import { TOPICS } from '../core/bus/topics.ts'
import { startEmbedded, TEST_ADMIN_TOKEN } from '../test/setup/embedded.ts'
import type { BenchResult } from './result.ts'

/**
 * Firehose ingest: posts through the bus, extraction, resolution, insert and the social views,
 * against a bare insert of the very same mention rows into a copy of the table without views.
 */
export async function benchSocialIngest(posts = Number(process.env.BENCH_SOCIAL_POSTS ?? 40_000)): Promise<BenchResult> {
  const env = await startEmbedded({ LOG_LEVEL: 'warn' }, { social: false })
  try {
    await env.ingestThrough(1500)
    const known = await queryRows<{ address: string; symbol: string }>(env.rt.ch, 'SELECT address, symbol FROM contract_creations')
    const now = Number((await queryRows<{ t: string }>(env.rt.ch, 'SELECT toUnixTimestamp(max(timestamp)) AS t FROM chain_blocks'))[0]!.t)
    const records = Array.from({ length: posts }, (_, i) => {
      const t = known[i % known.length]!
      const text = i % 3 === 0 ? `aping $${t.symbol} here` : i % 3 === 1 ? `ca: ${t.address} lfg` : `gm, nothing to see ${i}`
      return { key: null, value: JSON.stringify({ id: `b${i}`, author: `acct_${i % 3000}`, posted_at: now - (i % 7200), captured_at: now, text, links: [] }) }
    })
    const t0 = performance.now()
    for (let i = 0; i < records.length; i += 2000) await env.rt.bus.publish(TOPICS.socialPosts, records.slice(i, i + 2000))
    const expected = records.filter((_, i) => i % 3 !== 2).length
    for (;;) {
      const [r] = await queryRows<{ n: string }>(env.rt.ch, 'SELECT count() AS n FROM mentions')
      if (Number(r!.n) >= expected * 0.999) break
      await new Promise((res) => setTimeout(res, 50))
    }
    const oursSeconds = (performance.now() - t0) / 1000
    const rows = await queryRows<Record<string, unknown>>(env.rt.ch, 'SELECT * FROM mentions')
    await env.rt.ch.command({ query: 'CREATE TABLE bare_mentions AS mentions ENGINE = MergeTree ORDER BY tuple()' })
    const t1 = performance.now()
    for (let i = 0; i < rows.length; i += 2000) await env.rt.ch.insert({ table: 'bare_mentions', values: rows.slice(i, i + 2000), format: 'JSONEachRow' })
    const bareSeconds = (performance.now() - t1) / 1000
    return {
      name: 'social: firehose posts/s (bus → extract → resolve → insert → views, chDB)',
      baseline: 'bare insert of the same mention rows into a copy of the table without views',
      ours: { value: Math.round(posts / oursSeconds), unit: 'posts/s' },
      base: { value: Math.round(posts / bareSeconds), unit: 'posts/s' },
      ratio: bareSeconds / oursSeconds,
      notes: `${posts} posts, ${rows.length} mention rows (a third of the posts name no token), batches of 2000`,
    }
  } finally {
    await env.close()
  }
}

/**
 * /social/momentum at 10 million mentions: the endpoint (hourly view + cluster collapse + caller
 * weights, first call after the data changed, so uncached) against the naive query counting raw
 * mentions in the window.
 */
export async function benchMomentum(mentions = Number(process.env.BENCH_MENTIONS ?? 10_000_000)): Promise<BenchResult> {
  const env = await startEmbedded({ LOG_LEVEL: 'warn' }, { social: false })
  try {
    await env.ingestThrough(200)
    const end = 1_800_000_000
    // Generated in the engine: 2,000 tokens, 50,000 accounts, spread over 48 hours.
    await env.rt.ch.command({
      query: `INSERT INTO mentions SELECT concat('p', toString(number)), concat('0x', leftPad(hex(number % 2000), 40, '0')), '', 'address', 0,
                concat('acct_', toString(cityHash64(number) % 50000)), toDateTime(${end} - (cityHash64(number, 1) % (48 * 3600))), toDateTime(${end})
              FROM numbers(${mentions})`,
      clickhouse_settings: { max_insert_threads: "2" },
    })
    env.api.watermarks.socialAdvanced(mentions)
    const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
    const timeEndpoint = async () => {
      env.api.watermarks.socialAdvanced(1) // a new version: no cached answer
      const t = performance.now()
      const r = await env.api.app.inject({ method: 'GET', url: '/social/momentum?hours=6', headers })
      if (r.statusCode !== 200) throw new Error(r.body)
      return performance.now() - t
    }
    const timeNaive = async () => {
      const t = performance.now()
      await queryRows(env.rt.ch, `SELECT token, count() AS n, groupUniqArray(author) AS a FROM mentions WHERE posted_at > toDateTime(${end - 6 * 3600}) GROUP BY token`)
      return performance.now() - t
    }
    await timeEndpoint()
    await timeNaive()
    const ours = Math.min(...(await sequential(5, timeEndpoint)))
    const naive = Math.min(...(await sequential(5, timeNaive)))
    return {
      name: `social: /social/momentum latency at ${(mentions / 1e6).toFixed(0)} million mentions (uncached)`,
      baseline: 'naive query counting raw mentions in the window',
      ours: { value: Math.round(ours), unit: 'ms' },
      base: { value: Math.round(naive), unit: 'ms' },
      ratio: naive / ours,
      notes: `best of 5 each; 2,000 tokens, 50,000 accounts, 48 h of mentions; ratio > 1 means faster than the baseline`,
    }
  } finally {
    await env.close()
  }
}

async function sequential(n: number, fn: () => Promise<number>): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) out.push(await fn())
  return out
}
