import { randomBytes } from 'node:crypto'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClickHouse, queryRows } from '../../core/clickhouse.ts'
import { SIM_4663_CONTRACTS } from '../../pipelines/sim/contracts.ts'
import { chainTopic, namespaced, TOPICS } from '../../core/bus/topics.ts'
import { startOwnKafka, type OwnKafka } from '../setup/own-kafka.ts'
import { independentCounts } from '../setup/sim-counts.ts'
import { freePort, spawnSvc, startSvcServer, type SvcChild, type SvcServer } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'
import { until } from '../setup/until.ts'

/**
 * Kafka faults with the real process roles, on a broker of this file's own (the shared one is
 * never stopped): `svc sim` publishes live blocks (a block a second after a short backfill) while
 * the pipeline consumes. The broker is stopped for 30 s and restarted; in the second test the
 * chain pipeline is SIGKILLed in the middle of a batch and restarted. Afterwards what reached
 * ClickHouse is recounted against what the topic holds: every published block ingested once.
 */

const BACKFILL = 300
const OUTAGE_MS = 30_000
const ADMIN = 'broker-faults-admin-token-1234'
/**
 * A call not answered within this is a hang. The embedded engine answers queries on the event
 * loop, and this machine's two cores are shared: seconds, not the 30 s of the outage.
 */
const NO_ANSWER_MS = 10_000

let kafka: OwnKafka
const cleanups: Array<() => Promise<unknown> | unknown> = []
beforeAll(async () => {
  kafka = await startOwnKafka()
}, 180_000)
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
  await kafka?.dispose()
}, 120_000)

function baseEnv() {
  const ns = `bf${randomBytes(4).toString('hex')}`
  return {
    ns,
    env: { KAFKA_BROKERS: kafka.brokers, BUS_NAMESPACE: ns, LOG_LEVEL: 'info', REDIS_URL: '', SVC_ADMIN_TOKEN: ADMIN, X402_LOCAL_CHAIN: 'off', SIMULATOR_BLOCK_SECONDS: '1', PIPELINE_BATCH_BLOCKS: '100' },
  }
}

/** `svc sim` live: a backfill of BACKFILL blocks up to now, then a block a second. */
function startSim(env: Record<string, string>): { sim: SvcChild; genesis: number } {
  const data = tempDir('svc-bf-sim-')
  cleanups.push(() => data.cleanup())
  const genesis = Math.floor(Date.now() / 1000) - BACKFILL
  const sim = spawnSvc(['sim', '--genesis', String(genesis)], { ...env, DATA_DIR: data.path })
  cleanups.push(() => sim.stop())
  return { sim, genesis }
}

/** Every message on a topic, read from the beginning with a throwaway group. */
async function readTopic(brokers: string, topic: string): Promise<string[]> {
  const client = new Kafka({ clientId: 'broker-faults-reader', brokers: [brokers], logLevel: logLevel.NOTHING })
  const admin = client.admin()
  await admin.connect()
  const ends = await admin.fetchTopicOffsets(topic)
  await admin.disconnect()
  const wanted = ends.reduce((n, p) => n + Number(p.high) - Number(p.low), 0)
  const values: string[] = []
  const consumer = client.consumer({ groupId: `reader-${randomBytes(4).toString('hex')}` })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  const done = new Promise<void>((resolve) => {
    if (wanted === 0) resolve()
    void consumer.run({
      eachMessage: async ({ message }) => {
        values.push(message.value!.toString())
        if (values.length >= wanted) resolve()
      },
    })
  })
  await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error(`read ${values.length} of ${wanted} on ${topic}`)), 60_000))])
  await consumer.disconnect()
  return values
}

/** Block numbers published on the chain topic: they must be 1..M without a gap; returns M. */
async function publishedThrough(ns: string): Promise<number> {
  const blocks = new Set((await readTopic(kafka.brokers, namespaced(ns, chainTopic(4663)))).map((v) => (JSON.parse(v) as { number: number }).number))
  const m = Math.max(...blocks)
  expect(blocks.size, 'the simulator published every block from 1').toBe(m)
  return m
}

/** Minutes of ETH/USD candles published (each once, however often it was sent). */
async function publishedMinutes(ns: string): Promise<number> {
  return new Set((await readTopic(kafka.brokers, namespaced(ns, TOPICS.pricesEthUsd))).map((v) => (JSON.parse(v) as { minute: number }).minute)).size
}

/** What ClickHouse holds after the run equals an independent count over blocks 1..m. */
async function recount(dataDir: string, m: number, genesis: number, minutes: number): Promise<void> {
  const ch = await createClickHouse({ DATA_DIR: dataDir } as never)
  try {
    const one = async (q: string) => Number((await queryRows<{ v: string }>(ch, q))[0]!.v)
    const expected = independentCounts(m, { startTime: genesis, blockSeconds: 1 })
    expect(expected.swaps).toBeGreaterThan(50)
    expect(await one('SELECT count() AS v FROM chain_blocks')).toBe(m)
    expect(await one('SELECT uniqExact(number) AS v FROM chain_blocks')).toBe(m)
    expect(await one('SELECT count() AS v FROM swaps')).toBe(expected.swaps)
    expect(await one('SELECT uniqExact(block_number, log_index) AS v FROM swaps')).toBe(expected.swaps)
    expect(await one('SELECT count() AS v FROM erc20_transfers')).toBe(expected.transfers)
    expect(await one('SELECT count() AS v FROM contract_creations')).toBe(expected.creations)
    expect(await one('SELECT sum(swaps) AS v FROM token_activity')).toBe(expected.swaps)
    const mismatches = await queryRows(
      ch,
      `SELECT a.token FROM (SELECT token, sum(swaps) AS swaps, sum(weth_volume) AS vol FROM token_activity GROUP BY token) AS a
       FULL OUTER JOIN (SELECT token, count() AS swaps, sum(weth_in + weth_out) AS vol FROM swaps GROUP BY token) AS r USING (token)
       WHERE a.swaps != r.swaps OR a.vol != r.vol`,
    )
    expect(mismatches).toEqual([])
    if (minutes > 0) expect(await one('SELECT count() AS v FROM price_candles')).toBe(minutes)
  } finally {
    await ch.close()
  }
}

interface Probe {
  at: number
  phase: 'before' | 'down' | 'after'
  path: string
  status: number | 'no answer'
  ms?: number
  code?: string
  mtb?: number | null
}

/** The block /stats is measured through, asked until it answers 200 (a busy machine can take an engine read past a short wait); a wait that ends says what /stats last answered. */
async function measuredThrough(base: string): Promise<number | null> {
  let last = 'nothing yet'
  return until(`${base}/stats to answer`, async () => {
    const r = await fetch(`${base}/stats`, { signal: AbortSignal.timeout(15_000) }).catch((err: Error) => {
      last = `no answer (${err.message})`
      return undefined
    })
    if (r === undefined) return undefined
    if (r.status !== 200) {
      last = `${r.status} ${(await r.text()).slice(0, 300)}`
      return undefined
    }
    const body = (await r.json()) as { data: { chains: Array<{ measured_through_block: number | null }> } }
    return body.data.chains[0]!.measured_through_block
  }, 60_000).catch((err: Error) => {
    throw new Error(`${err.message}; it last answered ${last}`)
  })
}

describe('Kafka broker faults with svc sim, svc pipeline and svc api', () => {
  it('the broker stopped for 30 s under load: the API answers throughout, the pipeline resumes by itself, every record ingested once', { timeout: 420_000 }, async () => {
    const { ns, env } = baseEnv()
    const data = tempDir('svc-bf-data-')
    cleanups.push(() => data.cleanup())
    const { sim, genesis } = startSim(env)
    // The pipelines and the API in one process (chDB allows one process per data path), the
    // simulator being the separate `svc sim`: its contracts are the ones to follow.
    const follow = {
      CHAIN_4663_WETH: SIM_4663_CONTRACTS.weth,
      CHAIN_4663_V2_FACTORIES: SIM_4663_CONTRACTS.v2Factories.join(','),
      CHAIN_4663_V3_FACTORIES: SIM_4663_CONTRACTS.v3Factories.join(','),
      CHAIN_4663_V4_POOL_MANAGER: SIM_4663_CONTRACTS.v4PoolManagers.join(','),
    }
    let svc: SvcServer | undefined
    svc = await startSvcServer(['start'], await freePort(), { ...env, ...follow, SIMULATOR: 'off', DATA_DIR: data.path }, 120_000)
    cleanups.push(() => svc?.stop())
    const base = svc.base
    await until('the backfill ingested', async () => ((await measuredThrough(base)) ?? 0) >= BACKFILL - 10 || undefined, 120_000)
    // An outage of a running service: every consumer has joined its group. (The API answers while
    // the later consumers still join, on a busy machine past the backfill; a broker gone during a
    // first join is test/integration/kafka-bus-outage.test.ts's case.)
    await until('svc start to have started every part', () => (svc!.said('svc started (embedded)') ? true : undefined), 180_000)

    let phase: Probe['phase'] = 'before'
    const probes: Probe[] = []
    let polling = true
    const poller = (async () => {
      while (polling) {
        for (const path of ['/stats', '/health', '/feed/new?tier=free']) {
          const p: Probe = { at: Date.now(), phase, path, status: 'no answer' }
          try {
            const r = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(NO_ANSWER_MS) })
            p.status = r.status
            p.ms = Date.now() - p.at
            const body = (await r.json()) as { error?: { code: string }; data?: { chains?: Array<{ measured_through_block: number | null }> }; measured_through_block?: unknown }
            p.code = body.error?.code
            if (path === '/stats' && r.status === 200) p.mtb = body.data!.chains![0]!.measured_through_block
          } catch {
            // no answer in time: recorded as such
          }
          probes.push(p)
        }
        await new Promise((r) => setTimeout(r, 250))
      }
    })()

    await new Promise((r) => setTimeout(r, 3_000))
    const beforeOutage = (await measuredThrough(base))!
    await kafka.stop()
    phase = 'down'
    await new Promise((r) => setTimeout(r, OUTAGE_MS))
    await kafka.start()
    phase = 'after'
    const backAt = Date.now()
    // Resumed by itself: catches up to the blocks the simulator produced meanwhile.
    const dueAtRestart = Math.floor(Date.now() / 1000) - genesis
    await until('the pipeline resumed and caught up', async () => ((await measuredThrough(base)) ?? 0) >= dueAtRestart || undefined, 120_000).catch((err: Error) => {
      throw new Error(`${err.message} (due through ${dueAtRestart})\n--- sim:\n${sim.output().slice(-3000)}\n--- svc start:\n${svc!.output().slice(-6000)}`)
    })
    console.log(`[broker-faults] caught up with the simulator ${((Date.now() - backAt) / 1000).toFixed(1)} s after the broker answered again`)
    polling = false
    await poller

    expect(sim.child.exitCode, `the simulator survived the outage:\n${sim.output()}`).toBeNull()
    // It held its records while the broker was away and published them once it was back.
    expect(sim.output()).toContain('publishing resumed')
    const simExit = await sim.stop()
    expect(simExit.code, sim.output()).toBe(0)
    const m = await publishedThrough(ns)
    const minutes = await publishedMinutes(ns)
    await until(`the pipeline ingested through block ${m}`, async () => ((await measuredThrough(base)) === m ? true : undefined), 60_000)

    // The API answered throughout: every call in time, no 5xx but a 503 naming a dependency.
    const down = probes.filter((p) => p.phase === 'down')
    const ms = probes.filter((p) => p.ms !== undefined).map((p) => p.ms!).sort((a, b) => a - b)
    console.log(`[broker-faults] ${probes.length} API calls (${down.length} during the outage): p50 ${ms[Math.floor(ms.length / 2)]} ms, p99 ${ms[Math.floor(ms.length * 0.99)]} ms, max ${ms.at(-1)} ms`)
    expect(down.length).toBeGreaterThan(20)
    expect(probes.filter((p) => p.status === 'no answer')).toEqual([])
    expect(probes.filter((p) => typeof p.status === 'number' && p.status >= 500 && !(p.status === 503 && p.code === 'dependency_unavailable'))).toEqual([])
    expect(probes.filter((p) => p.path !== '/health' && p.status !== 200)).toEqual([])
    // /health says the bus is down while it is.
    expect(down.some((p) => p.path === '/health' && p.status === 503)).toBe(true)
    // Data as of the last ingested block: measured_through_block held still and never went back.
    const mtbs = probes.filter((p) => p.mtb != null).map((p) => p.mtb!)
    expect(mtbs.every((v, i) => i === 0 || v >= mtbs[i - 1]!)).toBe(true)
    const downMtbs = down.filter((p) => p.mtb != null).map((p) => p.mtb!)
    expect(Math.min(...downMtbs)).toBeGreaterThanOrEqual(beforeOutage)
    expect(m).toBeGreaterThan(Math.max(...downMtbs))

    // The price candles go through their own consumer: they are counted once it has caught up
    // too (a candle left on the topic at the stop is consumed by the next start, not lost).
    const candles = async () => {
      const r = await fetch(`${base}/admin/sql`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'SELECT count() AS v FROM price_candles' }) })
      return Number(((await r.json()) as { rows: Array<{ v: string }> }).rows[0]!.v)
    }
    if (minutes > 0) {
      await until(`the ${minutes} price candles ingested`, async () => ((await candles()) >= minutes ? true : undefined), 60_000).catch(async (err: Error) => {
        throw new Error(`${err.message} (${await candles()} in)\n--- svc start:\n${svc!.output().slice(-6000)}`)
      })
    }

    await svc.stop()
    svc = undefined
    await recount(data.path, m, genesis, minutes)
  })

  it('the chain pipeline SIGKILLed mid-batch under Kafka while the simulator publishes: restarted, every record ingested once', { timeout: 420_000 }, async () => {
    const { ns, env } = baseEnv()
    const data = tempDir('svc-bf-data-')
    cleanups.push(() => data.cleanup())
    const { sim, genesis } = startSim(env)
    const pipelineEnv = { ...env, DATA_DIR: data.path }
    // Killed right after the 3rd batch's swaps insert: the rest of that batch is not in yet.
    const crashed = spawnSvc(['pipeline', 'chain-4663'], { ...pipelineEnv, SVC_FAULT: 'crash-after-insert:swaps:3' })
    const crash = await Promise.race([crashed.exited, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`no crash:\n${crashed.output()}`)), 180_000))])
    expect(crash.signal, crashed.output()).toBe('SIGKILL')

    const healthPort = await freePort()
    const pipeline = spawnSvc(['pipeline', 'chain-4663'], { ...pipelineEnv, HEALTH_PORT: String(healthPort) })
    cleanups.push(() => pipeline.stop())
    // The role's probe and scrape port (HEALTH_PORT).
    const roleBase = `http://127.0.0.1:${healthPort}`
    const health = await until('the pipeline role answers /health', async () => {
      const r = await fetch(`${roleBase}/health`).catch(() => undefined)
      return r?.status === 200 ? ((await r.json()) as { status: string; role: string }) : undefined
    }, 120_000)
    expect(health).toEqual({ status: 'ok', role: 'pipeline-chain-4663' })
    // The simulator keeps publishing while the restarted pipeline catches up.
    await new Promise((r) => setTimeout(r, 15_000))
    expect(sim.child.exitCode, sim.output()).toBeNull()
    expect((await sim.stop()).code, sim.output()).toBe(0)
    const m = await publishedThrough(ns)

    // Caught up: the group's committed offset is the end of the chain topic.
    const admin = new Kafka({ clientId: 'broker-faults-lag', brokers: [kafka.brokers], logLevel: logLevel.NOTHING }).admin()
    await admin.connect()
    const topic = namespaced(ns, chainTopic(4663))
    try {
      await until(
        'the restarted pipeline consumed the whole chain topic',
        async () => {
          const [ends, committed] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId: namespaced(ns, 'chain-4663'), topics: [topic] })])
          const lag = ends.reduce((n, e) => n + Number(e.high) - Math.max(0, Number(committed[0]!.partitions.find((p) => p.partition === e.partition)?.offset ?? 0)), 0)
          return lag === 0 ? true : undefined
        },
        120_000,
      )
    } finally {
      await admin.disconnect()
    }
    expect(pipeline.child.exitCode, pipeline.output()).toBeNull()
    const metrics = await until('the lag in blocks measured at 0', async () => {
      const text = await (await fetch(`${roleBase}/metrics`)).text()
      return /^svc_ingest_lag_blocks\{chain="4663"\} 0$/m.test(text) ? text : undefined
    }, 30_000)
    expect(metrics).toMatch(new RegExp(`^svc_measured_through_block\\{chain="4663"\\} ${m}$`, 'm'))
    expect(metrics).toMatch(/^svc_consumer_step_duration_seconds_count\{consumer="chain-4663",step="chain-writer"\} [1-9]/m)
    expect(metrics).toContain('svc_nodejs_eventloop_lag_p99_seconds')
    expect((await pipeline.stop()).code, pipeline.output()).toBe(0)

    // The API on the same data (the pipeline has stopped) says what was ingested. Without the bus:
    // an API with Kafka and no shared engine refuses to start (bin/shared-engine.ts).
    const api = await startSvcServer(['api'], await freePort(), { ...env, KAFKA_BROKERS: '', DATA_DIR: data.path }, 90_000)
    try {
      expect(await measuredThrough(api.base)).toBe(m)
    } finally {
      await api.stop()
    }
    // The candles went to the prices pipeline, which this test does not run.
    await recount(data.path, m, genesis, 0)
  })
})
