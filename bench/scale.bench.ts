import autocannon from 'autocannon'
import { followed4663 } from '../bin/follow.ts'
import { queryRows } from '../core/clickhouse.ts'
import { createChainProcessor, type ChainProcessor } from '../pipelines/process/chain-processor.ts'
import { decodeLog } from '../pipelines/decode/index.ts'
import type { ChainBlock } from '../pipelines/records/chain-block.ts'
import { createChainSimulator, DEFAULT_START_TIME } from '../pipelines/sim/chain-sim.ts'
import { SIM_4663_CONTRACTS, SIM_4663_V2_FACTORY, ZERO_ADDRESS } from '../pipelines/sim/contracts.ts'
import { encodeLog } from '../pipelines/sim/encode.ts'
import { chainTopic } from '../core/bus/topics.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../test/setup/embedded.ts'
import type { BenchResult } from './result.ts'

/**
 * Serving at scale (issue: "Serving that scales with the chain"). Synthetic history is built
 * directly in ClickHouse (INSERT … SELECT from numbers(), through the same materialized views)
 * at growing sizes of erc20 transfers, with tokens, swaps, traders, deployers and blocks in the
 * simulator's proportions (measured from its own blocks in this run). At each size, live blocks
 * go through the real chain processor (bus, decode, insert, per-block serving refresh), and the
 * API is measured: /token p99 hot and cold, /leaderboard and /search p99, resident memory.
 * The baseline is the same per-block refresh at the first (smallest) size, in this run.
 */

const LIVE_BLOCKS = Number(process.env.BENCH_SCALE_LIVE_BLOCKS ?? 40)
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

interface Proportions {
  /** Per erc20 transfer. */
  swaps: number
  tokens: number
  blocks: number
  /** Per swap. */
  traders: number
  /** Tokens per deployer. */
  tokensPerDeployer: number
  /** Per block (the live tape). */
  swapsPerBlock: number
  transfersPerBlock: number
}

/** The simulator's proportions, from its first 3,000 blocks decoded with our decoders. */
export function simProportions(blocks = 3000): Proportions {
  const sim = createChainSimulator({ chainId: 4663, seed: 4663, startTime: DEFAULT_START_TIME, blockTimeSec: 2 })
  let swaps = 0
  let transfers = 0
  let creations = 0
  const traders = new Set<string>()
  const deployers = new Set<string>()
  for (let i = 1; i <= blocks; i++) {
    const b = sim.nextBlock()
    creations += b.creations.length
    for (const c of b.creations) deployers.add(c.deployer)
    for (const log of b.logs) {
      const ev = decodeLog(log)
      if (ev?.type === 'v2_swap' || ev?.type === 'v3_swap' || ev?.type === 'v4_swap') {
        swaps++
        traders.add(log.txFrom)
      } else if (ev?.type === 'erc20_transfer') transfers++
    }
  }
  return {
    swaps: swaps / transfers,
    tokens: creations / transfers,
    blocks: blocks / transfers,
    traders: traders.size / swaps,
    tokensPerDeployer: creations / deployers.size,
    swapsPerBlock: swaps / blocks,
    transfersPerBlock: transfers / blocks,
  }
}

/** SQL for the synthetic addresses: one prefix letter per kind, then the index in hex. */
const addr = (prefix: string, expr: string) => `concat('0x${prefix}', leftPad(lower(hex(toUInt64(${expr}))), 39, '0'))`
const jsAddr = (prefix: string, n: number) => `0x${prefix}${n.toString(16).padStart(39, '0')}`

/** Tokens created by block b (token k is created, and launched, in block 1 + floor(k·blocks/tokens)). */
const tokensBy = (p: Proportions, blockExpr: string) => `(intDiv(toUInt64((${blockExpr}) - 1) * ${Math.round(1e6 * p.tokens / p.blocks)}, 1000000) + 1)`

/**
 * Extend the synthetic history from `from` to `to` transfers (and everything in proportion):
 * cumulative, so that one database grows through every size.
 */
export async function buildHistory(env: Embedded, p: Proportions, from: number, to: number): Promise<{ blocks: number; tokens: number }> {
  const ch = env.rt.ch
  const run = (query: string) => ch.command({ query, clickhouse_settings: { max_insert_threads: '2', max_threads: 2 } })
  const blocks0 = Math.floor(from * p.blocks)
  const blocks1 = Math.floor(to * p.blocks)
  const tokens0 = Math.floor(from * p.tokens)
  const tokens1 = Math.floor(to * p.tokens)
  const time = (b: string) => `toDateTime(${DEFAULT_START_TIME} + 2 * (${b}))`
  const tokenBlock = (k: string) => `(1 + intDiv(toUInt64(${k}) * ${Math.round(1e6 * p.blocks / p.tokens)}, 1000000))`
  const weth = SIM_4663_CONTRACTS.weth
  await run(`INSERT INTO contract_creations (chain_id, address, deployer, block_number, tx_index, tx_hash, created_at, name, symbol, decimals)
    SELECT 4663, ${addr('a', 'number')}, ${addr('d', `cityHash64(number) % (intDiv(number, ${Math.max(1, Math.round(p.tokensPerDeployer))}) + 1)`)},
           ${tokenBlock('number')}, 0, concat('0x', lower(hex(sipHash128(number, 'c')))), ${time(tokenBlock('number'))},
           concat('Scale Token ', toString(number)), concat('SC', toString(number)), 18
    FROM numbers(${tokens0}, ${tokens1 - tokens0})`)
  await run(`INSERT INTO pools (chain_id, pool, protocol, factory, token0, token1, block_number, log_index, created_at)
    SELECT 4663, ${addr('b', 'number')}, 'v2', '${SIM_4663_V2_FACTORY}', ${addr('a', 'number')}, '${weth}', ${tokenBlock('number')}, 0, ${time(tokenBlock('number'))}
    FROM numbers(${tokens0}, ${tokens1 - tokens0})`)
  await run(`INSERT INTO launches (chain_id, token, pool, protocol, block_number, launched_at, visible_at)
    SELECT 4663, ${addr('a', 'number')}, ${addr('b', 'number')}, 'v2', ${tokenBlock('number')}, ${time(tokenBlock('number'))},
           fromUnixTimestamp64Micro(toInt64(${DEFAULT_START_TIME} + 2 * ${tokenBlock('number')}) * 1000000 + number % 1000000)
    FROM numbers(${tokens0}, ${tokens1 - tokens0})`)
  // Rows in chunks: bounded memory whatever the size.
  const CHUNK = 5_000_000
  for (let n = from; n < to; n += CHUNK) {
    const count = Math.min(CHUNK, to - n)
    const block = `(1 + intDiv(number * ${Math.round(1e9 * p.blocks)}, 1000000000))`
    await run(`INSERT INTO erc20_transfers (chain_id, block_number, log_index, tx_hash, token, from_address, to_address, value, block_time)
      SELECT 4663, ${block}, toUInt32(number % 4294967295), concat('0x', lower(hex(sipHash128(number, 't')))),
             ${addr('a', `cityHash64(number) % ${tokensBy(p, block)}`)},
             if(number % 50 = 0, '${ZERO_ADDRESS}', ${addr('e', `cityHash64(number, 1) % (intDiv(number, 5) + 1)`)}),
             ${addr('e', `cityHash64(number, 2) % (intDiv(number, 5) + 1)`)},
             toUInt256(cityHash64(number, 3) % 1000000000000000000000), ${time(block)}
      FROM numbers(${n}, ${count})`)
  }
  const swaps0 = Math.floor(from * p.swaps)
  const swaps1 = Math.floor(to * p.swaps)
  for (let m = swaps0; m < swaps1; m += CHUNK) {
    const count = Math.min(CHUNK, swaps1 - m)
    const block = `(1 + intDiv(number * ${Math.round(1e9 * p.blocks / p.swaps)}, 1000000000))`
    const token = `cityHash64(number, 5) % ${tokensBy(p, block)}`
    const x = `toUInt256(cityHash64(number, 6) % 2000000000000000000)`
    const y = `toUInt256(cityHash64(number, 7) % 1000000000000000000000000)`
    await run(`INSERT INTO swaps (chain_id, block_number, log_index, tx_hash, pool, protocol, token, trader, token_in, token_out, weth_in, weth_out, block_time)
      SELECT 4663, ${block}, toUInt32(number % 4294967295), concat('0x', lower(hex(sipHash128(number, 's')))), ${addr('b', token)}, 'v2', ${addr('a', token)},
             ${addr('f', `cityHash64(number, 8) % (toUInt64(number * ${p.traders.toFixed(6)}) + 1)`)},
             if(number % 2 = 0, 0, ${y}), if(number % 2 = 0, ${y}, 0), if(number % 2 = 0, ${x}, 0), if(number % 2 = 0, 0, ${x}), ${time(block)}
      FROM numbers(${m}, ${count})`)
  }
  await run(`INSERT INTO chain_blocks (chain_id, number, hash, parent_hash, timestamp, log_count)
    SELECT 4663, number, concat('0x', lower(hex(sipHash128(number, 'h')))), concat('0x', lower(hex(sipHash128(number - 1, 'h')))), ${time('number')}, 0
    FROM numbers(${blocks0 + 1}, ${blocks1 - blocks0})`)
  return { blocks: blocks1, tokens: tokens1 }
}

/** A live block on top of the synthetic history: v2 swaps and transfers of existing tokens. */
function liveBlock(p: Proportions, number: number, tokens: number, seed: number): ChainBlock {
  const logs: ChainBlock['logs'] = []
  const rand = (i: number) => Math.abs(Math.sin(seed * 9973 + i * 7919)) // deterministic, spread
  const hex64 = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
  let li = 0
  const push = (spec: Parameters<typeof encodeLog>[0], from: string) => {
    const enc = encodeLog(spec)
    logs.push({ logIndex: li, txHash: hex64(number * 10_000 + li), txIndex: li, txFrom: from, address: enc.address, topics: enc.topics, data: enc.data })
    li++
  }
  for (let i = 0; i < Math.max(1, Math.round(p.swapsPerBlock)); i++) {
    const k = Math.floor(rand(i) * tokens)
    const trader = jsAddr('f', Math.floor(rand(i + 100) * 1_000_000))
    // token0 is the token, token1 WETH (as the synthetic pools were created): a buy.
    push({ type: 'v2_swap', address: jsAddr('b', k), sender: trader, to: trader, amount0In: 0n, amount1In: 10n ** 16n, amount0Out: 10n ** 20n, amount1Out: 0n }, trader)
  }
  for (let i = 0; i < Math.max(1, Math.round(p.transfersPerBlock)); i++) {
    const k = Math.floor(rand(i + 1000) * tokens)
    const from = jsAddr('e', Math.floor(rand(i + 2000) * 1_000_000))
    push({ type: 'erc20_transfer', address: jsAddr('a', k), from, to: jsAddr('e', Math.floor(rand(i + 3000) * 1_000_000)), value: 10n ** 18n }, from)
  }
  return { chainId: 4663, number, hash: hex64(0xabc000000 + number), parentHash: hex64(0xabc000000 + number - 1), timestamp: DEFAULT_START_TIME + 2 * number, creations: [], logs }
}

/**
 * The real client, timing each call by the first words of its statement (or the table it inserts
 * into): where a live block's time goes, at each size.
 */
function timedClient(ch: Embedded['rt']['ch']) {
  const spent = new Map<string, number>()
  const label = (a: { query?: string; table?: string }) =>
    a.table ? `insert ${a.table}` : (a.query ?? '').replace(/--[^\n]*\n/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 48)
  const timed = new Proxy(ch, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (!['query', 'insert', 'command'].includes(prop as string) || typeof value !== 'function') return value
      return async (args: { query?: string; table?: string }) => {
        const t = performance.now()
        try {
          return await (value as (a: unknown) => Promise<unknown>).call(target, args)
        } finally {
          spent.set(label(args), (spent.get(label(args)) ?? 0) + performance.now() - t)
        }
      }
    },
  }) as Embedded['rt']['ch']
  return {
    ch: timed,
    reset: () => spent.clear(),
    report: (blocks: number) =>
      [...spent].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, ms]) => `${(ms / blocks).toFixed(1)} ms ${k}`).join('; '),
  }
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN
}

interface SizeFigures {
  transfers: number
  tokens: number
  buildS: number
  catchUpS: number
  refreshP50: number
  refreshP99: number
  tokenHotP99: number
  tokenHotRps: number
  tokenColdP99: number
  leaderboardP99: number
  searchP99: number
  rssMb: number
  /** The chain processor's ClickHouse calls during the live blocks: mean ms per block, by statement. */
  breakdown: string
}

async function timed(url: string): Promise<number> {
  const t = performance.now()
  const res = await fetch(url, { headers: admin })
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`)
  await res.arrayBuffer()
  return performance.now() - t
}

export async function benchScale(): Promise<BenchResult[]> {
  const sizes = (process.env.BENCH_SCALE_SIZES ?? '1000000,10000000,50000000').split(',').map(Number)
  const p = simProportions()
  const env = await startEmbedded({ LOG_LEVEL: 'warn', PIPELINE_BATCH_BLOCKS: '1' }, { social: false })
  // The embedded processor started on an empty chain; the synthetic pools must be in its registry,
  // so it is replaced once history exists.
  await env.processor.stop()
  const base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
  const figures: SizeFigures[] = []
  let processor: ChainProcessor | undefined
  let built = 0
  let block = 0
  try {
    for (const size of sizes) {
      await processor?.stop()
      const t0 = performance.now()
      const { blocks, tokens } = await buildHistory(env, p, built, size)
      const buildS = (performance.now() - t0) / 1000
      built = size
      block = Math.max(block, blocks)
      const t1 = performance.now()
      const timing = timedClient(env.rt.ch)
      processor = createChainProcessor({
        ch: timing.ch, bus: env.rt.bus, logger: env.rt.logger, metrics: env.rt.metrics, chainId: 4663,
        follow: followed4663(env.rt.config), maxBatchBlocks: 1,
        onAdvance: (b, seq) => env.api.watermarks.advance(4663, b, seq),
      })
      // Start-up refreshes the serving state of everything ingested since the last served batch:
      // the one-time build of the new history (not a per-block cost).
      await processor.start()
      const catchUpS = (performance.now() - t1) / 1000

      timing.reset()
      const refreshMs: number[] = []
      const leaderboardMs: number[] = []
      const searchMs: number[] = []
      for (let i = 0; i < LIVE_BLOCKS; i++) {
        const before = await env.rt.metrics.servingRefresh.totals({ chain: '4663' })
        block++
        await env.rt.bus.publish(chainTopic(4663), [{ key: '4663', value: JSON.stringify(liveBlock(p, block, tokens, block)) }])
        const deadline = Date.now() + 60_000
        while (processor.watermark() < block) {
          if (Date.now() > deadline) throw new Error(`live block ${block} not ingested`)
          await new Promise((r) => setTimeout(r, 2))
        }
        const after = await env.rt.metrics.servingRefresh.totals({ chain: '4663' })
        refreshMs.push((after.sum - before.sum) * 1000)
        // The first leaderboard after a block computes it; the next ones are served from memory.
        for (let j = 0; j < 5; j++) leaderboardMs.push(await timed(`${base}/leaderboard`))
        for (let j = 0; j < 5; j++) searchMs.push(await timed(`${base}/search?q=SC${Math.floor(Math.random() * tokens)}`))
      }

      const breakdown = timing.report(LIVE_BLOCKS)
      const hot = jsAddr('a', Math.floor(tokens / 2))
      await timed(`${base}/token/${hot}`)
      const load = await autocannon({ url: `${base}/token/${hot}`, headers: admin, connections: 20, duration: 4 })
      const coldMs: number[] = []
      for (let i = 0; i < 300; i++) coldMs.push(await timed(`${base}/token/${jsAddr('a', Math.floor(((i * 7919) % 1000) / 1000 * tokens) + (i % 7))}`))
      figures.push({
        transfers: size,
        tokens,
        buildS,
        catchUpS,
        refreshP50: pct(refreshMs, 0.5),
        refreshP99: pct(refreshMs, 0.99),
        tokenHotP99: load.latency.p99,
        tokenHotRps: load.requests.average,
        tokenColdP99: pct(coldMs, 0.99),
        leaderboardP99: pct(leaderboardMs, 0.99),
        searchP99: pct(searchMs, 0.99),
        rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
        breakdown,
      })
      const f = figures.at(-1)!
      console.log(`[scale] per live block, by statement: ${f.breakdown}`)
      console.log(`[scale] ${size.toLocaleString('en-US')} transfers, ${tokens.toLocaleString('en-US')} tokens: built in ${f.buildS.toFixed(1)} s, serving state caught up in ${f.catchUpS.toFixed(1)} s; refresh p50 ${f.refreshP50.toFixed(1)} ms p99 ${f.refreshP99.toFixed(1)} ms; /token hot p99 ${f.tokenHotP99} ms (${Math.round(f.tokenHotRps)} req/s), cold p99 ${f.tokenColdP99.toFixed(1)} ms; /leaderboard p99 ${f.leaderboardP99.toFixed(1)} ms; /search p99 ${f.searchP99.toFixed(1)} ms; rss ${f.rssMb} MiB`)
    }
  } finally {
    await processor?.stop()
    await env.close()
  }
  const first = figures[0]!
  return figures.map((f) => ({
    name: `scale: per-block serving refresh at ${f.transfers.toLocaleString('en-US')} transfers (${f.tokens.toLocaleString('en-US')} tokens), p50`,
    baseline: `the same refresh at ${first.transfers.toLocaleString('en-US')} transfers, this run`,
    ours: { value: Math.round(f.refreshP50 * 10) / 10, unit: 'ms' },
    base: { value: Math.round(first.refreshP50 * 10) / 10, unit: 'ms' },
    ratio: f.refreshP50 / first.refreshP50,
    notes:
      `refresh p99 ${f.refreshP99.toFixed(1)} ms; /token hot p99 ${f.tokenHotP99} ms at ${Math.round(f.tokenHotRps)} req/s, cold p99 ${f.tokenColdP99.toFixed(1)} ms; ` +
      `/leaderboard p99 ${f.leaderboardP99.toFixed(1)} ms; /search p99 ${f.searchP99.toFixed(1)} ms; process rss ${f.rssMb} MiB (embedded: chDB included); ` +
      `history built in ${f.buildS.toFixed(0)} s, serving state caught up in ${f.catchUpS.toFixed(0)} s; ratio = this size's refresh ÷ the first size's (lower is better; target ≤ 1.5 at 50 M)`,
  }))
}
