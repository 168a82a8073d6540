import { parseError } from '@clickhouse/client'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, describe, expect, it } from 'vitest'
import { createApiServer, type ApiServer } from '../../bin/serve-api.ts'
import { followed4663 } from '../../bin/follow.ts'
import type { Runtime } from '../../bin/runtime.ts'
import { createClickHouse, queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { loadConfig } from '../../core/config.ts'
import { createLogger } from '../../core/logger.ts'
import { createMetrics } from '../../core/metrics.ts'
import { createMemoryStore } from '../../core/store/memory-store.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import type { BusMessage } from '../../core/bus/types.ts'
import { createChainProcessor, type ChainProcessor } from '../../pipelines/process/chain-processor.ts'
import { DEFAULT_START_TIME } from '../../pipelines/sim/chain-sim.ts'
import { createSimSource } from '../../pipelines/sources/sim-source.ts'
import { chainTopic, deadLetterTopic } from '../../core/bus/topics.ts'
import { migrate } from '../../sql/migrate.ts'
import { startBlackHole, type BlackHole } from '../setup/black-hole.ts'
import { faultSwitch, faultyInserts, faultyPublishes } from '../setup/fault-injection.ts'
import { freePort } from '../setup/svc-process.ts'
import { STORED_TOTALS, uninterruptedTotals } from '../setup/sim-counts.ts'
import { tempDir } from '../setup/temp.ts'
import { until } from '../setup/until.ts'

/**
 * Infrastructure faults lose and double-count nothing (issue 20, item 4). The embedded pipeline
 * (chDB, the in-process bus, the chain processor, the API's /health) ingests simulated blocks
 * while faults are held on and then lifted, one after another: the broker down under the
 * simulator's publishes (a real kafkajs error from a closed port), then inserts into the raw
 * tables refused with EMFILE and ENOSPC as Node raises them, "Too many open files" as chDB raises
 * it, the ClickHouse client's own request timeout (a real one, from a server that never answers)
 * and the engine's TIMEOUT_EXCEEDED. Each is held for more attempts than a bad record is given.
 * Afterwards: no dead letter, no gap in chain_blocks, and every total equal to the rows an
 * uninterrupted run forms from the same blocks (the processor's own chainRows over all of them in
 * one pass), volume to the wei.
 */

const BLOCKS = 480
const BATCH = 40

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

/** The error `p` rejects with. */
const rejection = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a rejection') }, (err: unknown) => err)

/** Node's shape of a failed system call (fs.openSync under an exhausted descriptor table or a full disk). */
const systemError = (code: string, errno: number, text: string, path: string) =>
  Object.assign(new Error(`${code}: ${text}, open '${path}'`), { code, errno, syscall: 'open', path })

describe('infrastructure faults under the embedded pipeline', () => {
  it('EMFILE, ENOSPC, engine and client timeouts and a broker down are retried until they clear: nothing dead-lettered, no gap, totals equal an uninterrupted run, /health degraded meanwhile', { timeout: 240_000 }, async () => {
    // --- real errors, captured from the things that raise them ---
    const deadPort = await freePort()
    const kafka = new Kafka({ clientId: 'infra-faults', brokers: [`127.0.0.1:${deadPort}`], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 300 })
    const brokerDown = await rejection(kafka.producer().connect())
    const hole: BlackHole = await startBlackHole()
    cleanups.push(() => hole.close())
    const server = await createClickHouse({ CLICKHOUSE_URL: `http://127.0.0.1:${hole.port}`, CLICKHOUSE_REQUEST_TIMEOUT_MS: 300 } as never)
    const clientTimeout = await rejection(server.insert({ table: 'swaps', values: [{}], format: 'JSONEachRow' }))
    await server.close()
    expect((clientTimeout as Error).name).toBe('DependencyUnavailableError')
    const faults: Array<{ table: string; error: unknown; errorClass: string }> = [
      // The first batch's launches, refused after its pools went in: the retry must form them again.
      { table: 'launches', error: systemError('ENOSPC', -28, 'no space left on device', '/data/clickhouse/store/tmp_insert/data.bin'), errorClass: 'disk_full' },
      { table: 'swaps', error: systemError('EMFILE', -24, 'too many open files', '/data/clickhouse/store/tmp_insert/data.bin'), errorClass: 'fd_exhausted' },
      { table: 'chain_blocks', error: parseError('Code: 573. DB::Exception: Cannot open epoll descriptor: , errno: 24, strerror: Too many open files. (EPOLL_ERROR)'), errorClass: 'fd_exhausted' },
      { table: 'erc20_transfers', error: clientTimeout, errorClass: 'timeout' },
      { table: 'pool_reserves', error: parseError('Code: 159. DB::Exception: Timeout exceeded: elapsed 30.001 seconds, maximum: 30. (TIMEOUT_EXCEEDED)'), errorClass: 'timeout' },
    ]

    // --- the embedded pipeline over a faulty engine and bus ---
    const dir = tempDir()
    cleanups.push(() => dir.cleanup())
    const config = loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'silent', KAFKA_BROKERS: '', REDIS_URL: '', CLICKHOUSE_URL: '' })
    const realCh: ClickHouseClient = await createClickHouse(config)
    cleanups.push(() => realCh.close())
    await migrate(realCh)
    const inserts = faultSwitch()
    const publishes = faultSwitch()
    // A failing test must not leave the pipeline retrying while its engine closes.
    cleanups.push(() => { inserts.release(); publishes.release() })
    const memoryBus = createMemoryBus()
    cleanups.push(() => memoryBus.close())
    const metrics = createMetrics({ processMetrics: false })
    const logger = createLogger('silent', 'infra-faults')
    const rt: Runtime = { config, logger, metrics, ch: faultyInserts(realCh, inserts), bus: faultyPublishes(memoryBus, publishes), store: createMemoryStore(), close: async () => {} }
    const api: ApiServer = await createApiServer(rt, { pollMs: 0 })
    cleanups.push(() => api.close())
    const health = async () => {
      const res = await api.app.inject({ method: 'GET', url: '/health' })
      return { status: res.statusCode, body: res.json() as { status: string; components: Record<string, string>; faults?: Array<{ component: string; at: string; error_class: string; retries: number }> } }
    }
    const dead: BusMessage[] = []
    const dlq = await memoryBus.subscribe({ groupId: 'dlq-reader', topics: [deadLetterTopic(chainTopic(4663))], fromBeginning: true, async onBatch(b) { dead.push(...b.messages) } })
    cleanups.push(() => dlq.stop())
    const follow = followed4663(config)
    const processor: ChainProcessor = createChainProcessor({
      ch: rt.ch, bus: rt.bus, logger, metrics, chainId: 4663, follow, maxBatchBlocks: BATCH,
      onAdvance: (b, seq) => api.watermarks.advance(4663, b, seq),
    })
    await processor.start()
    cleanups.push(() => processor.stop())
    expect((await health()).body.status).toBe('ok')

    /** Held until the component has failed more often than a bad record may: then /health must say degraded, naming it. */
    const whileHeld = async (component: string, hits: () => number, errorClass: string) => {
      await until(`${component} retrying (${errorClass})`, () => (hits() >= 4 && metrics.infraFaults.active().some((f) => f.component === component) ? true : undefined), 60_000)
      // Readiness gives the engine 2 s for a SELECT 1; on this shared machine a retry's inserts
      // can hold it longer now and then (a 503 naming clickhouse): ask again while still held.
      let h = await health()
      for (let i = 0; i < 5 && h.status === 503; i++) h = await health()
      expect(h.status, JSON.stringify(h.body)).toBe(200)
      expect(h.body.status).toBe('degraded')
      expect(h.body.components[component]).toBe('degraded')
      expect(h.body.faults?.find((f) => f.component === component)?.error_class).toBe(errorClass)
      // The watermark is the last block stored, never one past it.
      const [stored] = await queryRows<{ n: string }>(realCh, 'SELECT if(count() = 0, -1, toInt64(max(number))) AS n FROM chain_blocks')
      expect(processor.watermark()).toBe(Number(stored!.n))
      console.log(`[infra-faults] ${component} ${errorClass}: ${hits()} attempts refused, /health degraded, watermark ${processor.watermark()}`)
    }

    // Broker down under the simulator: its blocks wait in the process and go out in order after.
    publishes.arm(brokerDown)
    const sim = createSimSource({
      bus: rt.bus, logger, metrics, chainId: 4663, seed: config.SIMULATOR_SEED, blockSeconds: 2,
      start: { fromBlock: 1, genesis: DEFAULT_START_TIME }, untilBlock: BLOCKS, social: false, prices: false, progressEveryMs: 0,
      ingested: () => processor.watermark(), maxAheadBlocks: BATCH,
    })
    const simDone = sim.run()
    await whileHeld('sim-4663', publishes.hits, 'broker')
    expect(processor.watermark()).toBe(-1)
    // The engine faults go in one after another, each in a later batch than the one before (the
    // simulator stays a batch ahead of the processor, so batches remain for all of them).
    inserts.arm(faults[0]!.error, faults[0]!.table)
    publishes.release()
    for (const f of faults) {
      if (f !== faults[0]) inserts.arm(f.error, f.table)
      await whileHeld('chain-4663', inserts.hits, f.errorClass)
      const held = processor.watermark()
      inserts.release()
      await until('the held batch stored', () => (processor.watermark() > held ? true : undefined), 60_000)
      expect(metrics.infraFaults.active()).toEqual([])
    }
    await simDone
    await until('every block ingested', () => (processor.watermark() >= BLOCKS ? true : undefined), 120_000)
    await until('/health ok again', async () => ((await health()).body.status === 'ok' ? true : undefined), 10_000)

    // --- nothing lost, nothing twice ---
    const expected = await uninterruptedTotals(BLOCKS, follow, { seed: config.SIMULATOR_SEED })
    const one = async (q: string) => (await queryRows<{ v: string }>(realCh, q))[0]!.v
    const [stored] = await queryRows<Record<string, string>>(realCh, STORED_TOTALS)
    const got = { ...Object.fromEntries(Object.entries(stored!).map(([k, v]) => [k, k === 'volume' ? v : Number(v)])) }
    expect(got).toEqual(expected)
    expect(expected.launches).toBeGreaterThan(0)
    // No gap: blocks 1..BLOCKS, each once.
    expect(await queryRows(realCh, 'SELECT min(number) AS lo, max(number) AS hi, uniqExact(number) AS n FROM chain_blocks')).toEqual([{ lo: '1', hi: String(BLOCKS), n: String(BLOCKS) }])
    // The materialized view over swaps counted each swap once.
    expect({ swaps: Number(await one('SELECT sum(swaps) AS v FROM token_activity')), volume: await one('SELECT toString(sum(weth_volume)) AS v FROM token_activity') }).toEqual({ swaps: expected.swaps, volume: expected.volume })
    await new Promise((r) => setTimeout(r, 200))
    expect(dead).toEqual([])
    expect(await metrics.render()).not.toMatch(/^svc_dead_letters_total\{/m)
    for (const kind of ['broker', 'fd_exhausted', 'disk_full', 'timeout']) {
      expect(await metrics.render()).toMatch(new RegExp(`^svc_pipeline_infra_retries_total\\{consumer="(chain|sim)-4663",kind="${kind}"\\} \\d+`, 'm'))
    }
    console.log(`[infra-faults] ${JSON.stringify(got)}`)
  })
})
