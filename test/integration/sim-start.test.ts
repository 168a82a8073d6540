import { randomBytes } from 'node:crypto'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, describe, expect, it } from 'vitest'
import { chainTopic, namespaced } from '../../core/bus/topics.ts'
import { kafkaBrokerList, requireKafkaBrokers } from '../setup/services.ts'
import { runSvc } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'
import { until } from '../setup/until.ts'

/**
 * Where `svc sim` starts without a stored watermark: a new world with the configured backfill
 * (24 h by default, as `svc start`), read back from the blocks it published on Kafka.
 */
const kafka = new Kafka({ clientId: 'sim-start-test', brokers: kafkaBrokerList(), logLevel: logLevel.NOTHING })
const admin = kafka.admin()
const topics: string[] = []
afterAll(async () => {
  await admin.connect()
  await admin.deleteTopics({ topics }).catch(() => {})
  await admin.disconnect()
})

async function firstBlocks(topic: string, n: number): Promise<Array<{ number: number; timestamp: number }>> {
  const got: Array<{ number: number; timestamp: number }> = []
  const consumer = kafka.consumer({ groupId: `sim-start-${randomBytes(3).toString('hex')}` })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  await consumer.run({ eachMessage: async ({ message }) => void got.push(JSON.parse(message.value!.toString()) as { number: number; timestamp: number }) })
  await until(`${n} blocks on ${topic}`, () => (got.length >= n ? true : undefined), 30_000)
  await consumer.disconnect()
  return got
}

async function sim(args: string[], extra: Record<string, string> = {}) {
  const ns = `simstart${randomBytes(4).toString('hex')}`
  const data = tempDir('svc-sim-start-')
  topics.push(...['chain.4663.logs', 'prices.eth_usd', 'social.posts', 'social.follows', 'tg.sightings', 'social.caller_mirrors', 'leaderboard.claims'].map((t) => namespaced(ns, t)))
  try {
    const r = await runSvc(['sim', ...args], { KAFKA_BROKERS: requireKafkaBrokers(), BUS_NAMESPACE: ns, DATA_DIR: data.path, REDIS_URL: '', CLICKHOUSE_URL: '', LOG_LEVEL: 'info', ...extra }, 90_000)
    expect(r.code, r.stdout + r.stderr).toBe(0)
    return { ns, out: r.stdout }
  } finally {
    data.cleanup()
  }
}

describe('svc sim with no stored watermark', () => {
  it('starts a new world from the configured backfill (24 h before now), not from 2025-01-01', { timeout: 120_000 }, async () => {
    const before = Math.floor(Date.now() / 1000)
    const { ns, out } = await sim(['--until', '3'])
    expect(out).toContain('the simulator cannot read the pipeline\'s watermark, so it starts a new world with the configured backfill')
    expect(out).toContain('backfill: 3 blocks of simulated history, from block 1')
    const blocks = await firstBlocks(namespaced(ns, chainTopic(4663)), 3)
    expect(blocks.map((b) => b.number)).toEqual([1, 2, 3])
    // Block n is stamped genesis + 2n s, and genesis is 43,200 blocks of 2 s (24 h) before the start.
    const genesis = blocks[0]!.timestamp - 2
    expect(genesis).toBeGreaterThanOrEqual(before - 86_400 - 5)
    expect(genesis).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) - 86_400 + 5)
  })
})
