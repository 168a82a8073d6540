import { randomBytes } from 'node:crypto'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createStalledDataCheck } from '../../api/health/stalled-data.ts'
import { createKafkaBus } from '../../core/bus/kafka-bus.ts'
import { kafkaBrokerList } from '../setup/services.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'

/**
 * /health's `degraded`: the served data stands still while the bus moves (a stopped pipeline, a
 * role on another ClickHouse), measured against the real broker's end offsets.
 */
const topic = `stall${randomBytes(4).toString('hex')}.chain.4663.logs`
const bus = createKafkaBus({ brokers: kafkaBrokerList(), clientId: 'stalled-data-test' })
const records = (n: number) => Array.from({ length: n }, (_, i) => ({ key: '4663', value: String(i) }))
let env: Embedded | undefined

beforeAll(async () => {
  await bus.ensureTopics([topic])
})
afterAll(async () => {
  await env?.close()
  await bus.close()
  const admin = new Kafka({ clientId: 'stalled-data-test', brokers: kafkaBrokerList(), logLevel: logLevel.NOTHING }).admin()
  await admin.connect()
  await admin.deleteTopics({ topics: [topic] }).catch(() => {})
  await admin.disconnect()
})

describe('createStalledDataCheck()', () => {
  it('names the stall once the bus has grown and the served block stood still for stallMs, and clears when the data moves', { timeout: 60_000 }, async () => {
    let served: number | null = 100
    let t = 0
    const check = createStalledDataCheck({ bus, topic, chainId: 4663, servedThrough: () => served, stallMs: 5_000, now: () => t })
    await bus.publish(topic, records(3))
    expect(await check.cause()).toBeNull() // the first look only takes the measure
    t = 10_000
    expect(await check.cause()).toBeNull() // still, but the bus did not move either: quiet, not stalled
    await bus.publish(topic, records(4))
    t = 12_000
    expect(await check.cause()).toBe(`chain 4663: the bus received 4 records on ${topic} while the served data stayed at block 100 for 12 s (is the chain-4663 pipeline running, on the same CLICKHOUSE_URL?)`)
    served = 107
    t = 13_000
    expect(await check.cause()).toBeNull()
    await bus.publish(topic, records(1))
    t = 14_000
    expect(await check.cause()).toBeNull() // moved a second ago: not yet a stall
    served = null
    expect(await check.cause()).toBeNull()
    await bus.publish(topic, records(2))
    t = 20_000
    expect(await check.cause()).toContain('while the served data stayed empty for 6 s')
  })

  it('GET /health answers 200 degraded with the cause, beside every component ok', { timeout: 120_000 }, async () => {
    env = await startEmbedded()
    let t = 0
    env.api.deps.stalledData = createStalledDataCheck({ bus, topic, chainId: 4663, servedThrough: () => 42, stallMs: 1_000, now: () => t })
    const first = (await env.api.app.inject({ method: 'GET', url: '/health' })).json()
    expect(first.status).toBe('ok')
    expect(first.degraded).toBeUndefined()
    await bus.publish(topic, records(2))
    t = 5_000
    const res = await env.api.app.inject({ method: 'GET', url: '/health' })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ status: 'degraded', components: { clickhouse: 'ok', bus: 'ok', store: 'ok' } })
    expect(body.degraded.data).toContain('the bus received 2 records')
  })
})
