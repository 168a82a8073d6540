import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, startSvcServer } from '../test/setup/svc-process.ts'
import { cpuShareByProcess, engineByConsumer, livePerBatch, scrape, waitLive } from './live-service.ts'
import { probeMachine, speedText } from './machine-probe.ts'
import type { BenchResult } from './result.ts'

const IDLE_SECONDS = Number(process.env.PIPELINE_IDLE_SECONDS ?? 60)
const FRESH_SECONDS = Number(process.env.PIPELINE_FRESH_SECONDS ?? 40)
/** Once everything is live, a pause before the idle reading: the backfill's last merges. */
const SETTLE_SECONDS = Number(process.env.PIPELINE_SETTLE_SECONDS ?? 40)
/** The simulated chain's block interval: what a live batch's time and a block's freshness are measured against. */
const BLOCK_MS = 2_000
/** Chain time the default world's backfill covers (SIMULATOR_BACKFILL_HOURS, 24). */
const BACKFILL_CHAIN_SECONDS = 24 * 3600

/**
 * The pipeline bench (`npm run bench -- pipeline`): `svc start` on a fresh default world as its
 * own process, and what its pipeline costs, read from outside: seconds from start until each
 * chain's 24 h backfill is in and it runs live, and until the Solana venue's 24 h are in (begun a
 * minute after chain 4663 is live); then, the whole world live and after a pause
 * (PIPELINE_SETTLE_SECONDS), with no request ever made, the CPU share of the whole process tree
 * and of each process in it, and a live chain-4663 batch (its duration from
 * svc_batch_duration_seconds, its statements and engine time by step from svc_engine_*_total);
 * last, freshness, the time from a block's timestamp (the simulator publishes a block when its
 * time comes) to the first /stats answer measured through it, polled every 20 ms, from the first
 * live batch on (a step of at most two blocks: catch-up batches are printed apart).
 */
export async function benchPipeline(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pipeline-'))
  const speedBefore = await probeMachine(dir)
  const started = Date.now()
  const svc = await startSvcServer(['start'], await freePort(), { DATA_DIR: join(dir, 'data'), SVC_ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef', LOG_LEVEL: 'warn' }, 600_000)
  try {
    const base = svc.base
    const liveAt: Record<string, number> = {}
    const live = await waitLive(base, (chain, sinceMs) => (liveAt[chain] = Math.round((sinceMs - started) / 1000)))
    const { solana: venueSeconds, ...chainsAt } = liveAt
    const servedSeconds = Math.max(...Object.values(chainsAt))
    // Every counter started with the service: what the backfill cost, step by step.
    const atLive = await scrape(base)
    const backfill = ['chain-4663', 'chain-5042'].map((c) => ({ consumer: c, ...livePerBatch(new Map(), atLive, c) }))

    // Idle first, after a pause for the backfill's last merges: the freshness probe asks /stats,
    // and what a caller asked is read ahead at each batch for READ_AHEAD_RECENT_MS after (the
    // idle reading taken after it counted that, not a service nobody asks).
    await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000))
    const before = await scrape(base)
    const cpu = await cpuShareByProcess(svc.child.pid!, IDLE_SECONDS)
    const idle = cpu.total
    const after = await scrape(base)

    const fresh = await freshness(base, FRESH_SECONDS)
    const batch = livePerBatch(before, after, 'chain-4663')
    await svc.stop()
    const speedAfter = await probeMachine(dir)
    const speed = speedText(speedBefore, speedAfter)
    const chains = Object.entries(chainsAt).map(([c, s]) => `chain ${c} live ${s} s after start`).join(', ')
    return [
      {
        name: `pipeline: the default world's 24 h backfill, both chains served ${servedSeconds} s after start (${chains}; at blocks ${JSON.stringify(live)}); the Solana venue's 24 h live ${venueSeconds} s after start (begun a minute after chain 4663 is live)`,
        baseline: 'the 24 h of chain time the backfill covers',
        ours: { value: servedSeconds, unit: 's from `svc start` until both chains run live' },
        base: { value: BACKFILL_CHAIN_SECONDS, unit: 's of chain time' },
        ratio: BACKFILL_CHAIN_SECONDS / servedSeconds,
        notes: backfill.map((b) => `${b.consumer}, ${b.batches} batches from start to live, per batch: mean ${b.meanMs} ms; ${b.text}`).join(' | '),
      },
      {
        name: `pipeline: idle, both chains live, no requests: ${(idle * 100).toFixed(1)}% of a core`,
        baseline: 'one core',
        ours: { value: Math.round(idle * 1000) / 10, unit: `% of a core (CPU of the process tree, engine included, over ${IDLE_SECONDS} s)` },
        base: { value: 100, unit: '% of a core' },
        ratio: idle,
        notes: `by process: ${cpu.byRole.map((r) => `${r.role} ${(r.share * 100).toFixed(1)}%`).join(', ')}; the engine's statements over those seconds by consumer (engine time is wall time, threads overlap): ${engineByConsumer(before, after, IDLE_SECONDS)}`,
      },
      {
        name: `pipeline: a live chain-4663 batch, mean ${batch.meanMs} ms, p99 <= ${batch.p99BoundMs} ms (${batch.batches} batches over ${IDLE_SECONDS} s)`,
        baseline: 'the block interval (a block every 2 s)',
        ours: { value: batch.meanMs, unit: 'ms per batch (mean)' },
        base: { value: BLOCK_MS, unit: 'ms' },
        ratio: BLOCK_MS / batch.meanMs,
        notes: `${speed}; statements and engine time per batch by step: ${batch.text}`,
      },
      {
        name: `pipeline: freshness, a chain-4663 block's timestamp to the first answer through it: p50 ${fresh.p50} ms, p99 ${fresh.p99} ms (${fresh.n} blocks)`,
        baseline: 'the block interval (a block every 2 s)',
        ours: { value: fresh.p50, unit: 'ms (p50)' },
        base: { value: BLOCK_MS, unit: 'ms' },
        ratio: BLOCK_MS / fresh.p50,
        notes: `every block, ms: ${fresh.all.join(' ')}; before the first live batch, catch-up steps (blocks, ms): ${fresh.catchUp.map((c) => `${c.blocks} ${c.ms}`).join(', ') || 'none'}`,
      },
    ]
  } finally {
    await svc.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The most blocks one served step may add for the chain to count as live: a block every 2 s, so
 * a live batch serves one (two when a block lands while the previous batch runs). A larger step
 * is the backfill's catch-up still running (waitLive's age bound lets its last batch through).
 */
const LIVE_STEP_BLOCKS = 2

/**
 * Poll /stats for `seconds`: each new chain-4663 block measured through, the time since its
 * timestamp, from the first live batch on (a step of at most LIVE_STEP_BLOCKS). The catch-up
 * batches before it are reported apart (`catchUp`): their blocks waited for the backfill, not a
 * live batch.
 */
async function freshness(base: string, seconds: number): Promise<{ n: number; p50: number; p99: number; all: number[]; catchUp: Array<{ blocks: number; ms: number }> }> {
  const lags: number[] = []
  const catchUp: Array<{ blocks: number; ms: number }> = []
  let last = -1
  const end = Date.now() + seconds * 1000
  while (Date.now() < end) {
    const body = (await (await fetch(`${base}/stats`)).json()) as { data: { chains: Array<{ chain_id: number; measured_through_block: number; last_block_time: string }> } }
    const chain = body.data.chains.find((c) => c.chain_id === 4663)!
    if (chain.measured_through_block !== last) {
      // The first reading is a block that may have been served long ago: only changes count.
      if (last >= 0) {
        const lag = Date.now() - Date.parse(chain.last_block_time)
        const step = chain.measured_through_block - last
        if (lags.length === 0 && step > LIVE_STEP_BLOCKS) catchUp.push({ blocks: step, ms: lag })
        else lags.push(lag)
      }
      last = chain.measured_through_block
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  if (lags.length === 0) throw new Error(`no live chain-4663 batch served in ${seconds} s (catch-up steps: ${JSON.stringify(catchUp)})`)
  const sorted = [...lags].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return { n: lags.length, p50: at(0.5), p99: at(0.99), all: lags, catchUp }
}
