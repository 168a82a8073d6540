import { randomBytes } from 'node:crypto'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, describe, expect, it } from 'vitest'
import { followed4663 } from '../../bin/follow.ts'
import { createClickHouse, queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { loadConfig } from '../../core/config.ts'
import { chainTopic, deadLetterTopic, namespaced } from '../../core/bus/topics.ts'
import { requireKafkaBrokers } from '../setup/services.ts'
import { STORED_TOTALS, uninterruptedTotals } from '../setup/sim-counts.ts'
import { runSvc } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * Real descriptor exhaustion (issue 20, item 4): `svc pipeline chain-4663` runs under a low
 * descriptor limit (`ulimit -n 2048`), and in the middle of a batch (after its third swaps insert)
 * SVC_FAULT=exhaust-fds opens files until the process has none left and holds them for a few
 * seconds: the engine itself answers "Too many open files" (chDB's EPOLL_ERROR, errno 24), as do
 * the bus's new connections. The pipeline retries until they are released and finishes: every
 * block stored once, no dead letter, totals equal an uninterrupted run, volume to the wei.
 */

const BLOCKS = 400
const HOLD_MS = 4_000

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})


describe('the chain pipeline out of file descriptors', () => {
  it('real EMFILE from the engine in the middle of a batch is retried until descriptors come back: no gap, no dead letter, totals equal an uninterrupted run', { timeout: 300_000 }, async () => {
    const ns = `fd${randomBytes(4).toString('hex')}`
    const env = { KAFKA_BROKERS: requireKafkaBrokers(), BUS_NAMESPACE: ns, PIPELINE_BATCH_BLOCKS: '50', LOG_LEVEL: 'info', REDIS_URL: '' }
    const simData = tempDir()
    const data = tempDir()
    cleanups.push(() => simData.cleanup(), () => data.cleanup())
    const sim = await runSvc(['sim', '--until', String(BLOCKS)], { ...env, DATA_DIR: simData.path })
    expect(sim.code, sim.stderr).toBe(0)

    const run = await runSvc(['pipeline', 'chain-4663', '--exit-at-block', String(BLOCKS)], { ...env, DATA_DIR: data.path, SVC_FAULT: `exhaust-fds:swaps:3:${HOLD_MS}` }, 240_000, { nofile: 2048 })
    const tail = `stdout:\n${run.stdout.slice(-3000)}\nstderr:\n${run.stderr.slice(-2000)}`
    expect(run.code, tail).toBe(0)
    // The descriptors really ran out, and the engine said so.
    expect(run.stderr, tail).toMatch(/SVC_FAULT: holding \d+ descriptors for \d+ ms \(EMFILE\)/)
    expect(run.stderr, tail).toMatch(/SVC_FAULT: released \d+ descriptors/)
    const faults = run.stdout.split('\n').filter((l) => l.includes('infrastructure fault; retrying'))
    console.log(`[fd-exhaustion] ${faults.length} fault lines, first: ${faults[0]?.slice(0, 400)}`)
    expect(faults.some((l) => l.includes('"error_class":"fd_exhausted"') && /Too many open files/.test(l)), tail).toBe(true)
    expect(run.stdout).toMatch(/infrastructure fault over/)
    expect(run.stdout).not.toMatch(/dead.letter|refused the batch/i)

    const ch: ClickHouseClient = await createClickHouse({ DATA_DIR: data.path } as never)
    cleanups.push(() => ch.close())
    expect(await queryRows(ch, 'SELECT min(number) AS lo, max(number) AS hi, uniqExact(number) AS n FROM chain_blocks')).toEqual([{ lo: '1', hi: String(BLOCKS), n: String(BLOCKS) }])
    const [stored] = await queryRows<Record<string, string>>(ch, STORED_TOTALS)
    const got = Object.fromEntries(Object.entries(stored!).map(([k, v]) => [k, k === 'volume' ? v : Number(v)]))
    expect(got).toEqual(await uninterruptedTotals(BLOCKS, followed4663(loadConfig({}))))
    console.log(`[fd-exhaustion] ${JSON.stringify(got)}`)

    // Nothing on the dead-letter topic.
    const admin = new Kafka({ clientId: 'fd-exhaustion', brokers: env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING }).admin()
    await admin.connect()
    try {
      const offsets = await admin.fetchTopicOffsets(namespaced(ns, deadLetterTopic(chainTopic(4663))))
      expect(offsets.map((o) => o.high)).toEqual(offsets.map(() => '0'))
    } finally {
      await admin.disconnect()
    }
  })
})
