import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { createLogger } from '../../core/logger.ts'
import { createMetrics } from '../../core/metrics.ts'
import type { Bus, BusMessage, Subscription } from '../../core/bus/types.ts'
import { createConsumer, type Consumer, type Sink } from '../../pipelines/consumer/create-consumer.ts'
import { dlq, hold, ok, type Step } from '../../pipelines/consumer/step-result.ts'
import { createTableSink } from '../../pipelines/consumer/table-sink.ts'
import { deadLetterTopic } from '../../core/bus/topics.ts'
import { freePort } from '../setup/svc-process.ts'
import { until } from '../setup/until.ts'

const Rec = z.object({ n: z.number().int() })
type Rec = z.infer<typeof Rec>

/**
 * The consumer framework's promises, on one Bus implementation: poison records are
 * dead-lettered (key, value, reason, step) after the attempt limit while the records behind
 * them go on; retryable failures are retried until they pass, and nothing is lost or counted
 * twice. `ch` is a real chDB: the double-count check is ClickHouse's own deduplication.
 */
export function consumerContract(name: string, makeBus: () => Bus | Promise<Bus>, getClickHouse: () => ClickHouseClient): void {
  describe(`consumer framework on the ${name} bus`, () => {
    let bus: Bus
    const running: Array<Consumer | Subscription> = []
    const logger = createLogger('silent', 'consumer-contract')

    beforeAll(async () => {
      bus = await makeBus()
    })
    afterAll(async () => {
      for (const c of running) await c.stop()
      await bus?.close()
    })

    const unique = (what: string) => `consumer.${name}.${what}.${randomBytes(4).toString('hex')}`
    const publish = (topic: string, values: Array<[string, string]>) => bus.publish(topic, values.map(([key, value]) => ({ key, value })))

    /** Every message on `topic` (a fresh group reading from the beginning). */
    async function collect(topic: string) {
      const seen: BusMessage[] = []
      const sub = await bus.subscribe({ groupId: unique('reader'), topics: [topic], fromBeginning: true, async onBatch(b) { seen.push(...b.messages) } })
      running.push(sub)
      return seen
    }

    /** Collects what the sink acknowledged, in order. */
    const collectingSink = (into: number[]): Sink<Rec> => ({ name: 'collect', async write(items) { into.push(...items.map((i) => i.value.n)) } })

    it('createConsumer() dead-letters a poison record with its key and reason after the attempt limit, and processes the records behind it', async () => {
      const topic = unique('poison')
      const metrics = createMetrics()
      const acked: number[] = []
      let poisonAttempts = 0
      // Refuses n = 3 for good (a plain Error is fatal), every time it is asked.
      const refuse3: Step<Rec, Rec> = {
        name: 'refuse-3',
        run(r) {
          if (r.n !== 3) return ok(r)
          poisonAttempts++
          throw new Error('three is not accepted')
        },
      }
      const evens: Step<Rec, Rec> = { name: 'no-sevens', run: (r) => (r.n === 7 ? dlq('seven: refused') : ok(r)) }
      await bus.ensureTopics([topic])
      await publish(topic, [['k1', '{"n":1}'], ['k2', '{"n":2}'], ['k3', '{"n":3}'], ['kx', 'not json'], ['k4', '{"n":4}'], ['k7', '{"n":7}'], ['k5', '{"n":5}']])
      const c = createConsumer({ name: 'poison-test', bus, logger, metrics, topic, schema: Rec, steps: [refuse3, evens], sink: collectingSink(acked), maxAttempts: 3, backoffMs: 10 })
      running.push(c)
      await c.start()
      await until('records behind the poison processed', async () => (acked.length >= 4 ? true : undefined), 30_000)
      expect(acked).toEqual([1, 2, 4, 5])
      expect(poisonAttempts).toBe(3)

      const dead = await collect(deadLetterTopic(topic))
      await until('three dead letters', async () => (dead.length >= 3 ? true : undefined), 30_000)
      expect(dead.map((m) => [m.key, m.value, m.headers?.reason, m.headers?.step])).toEqual([
        ['k3', '{"n":3}', 'failed: three is not accepted', 'refuse-3'],
        ['kx', 'not json', 'invalid_json', 'parse'],
        ['k7', '{"n":7}', 'seven: refused', 'no-sevens'],
      ])
      for (const m of dead) {
        expect(m.headers?.source_topic).toBe(topic)
        expect(Number.isNaN(Date.parse(m.headers!.at!))).toBe(false)
      }
      expect(dead[0]!.headers?.source_offset).toBe('2')
      expect(await metrics.stepResults.get({ consumer: 'poison-test', step: 'refuse-3', result: 'failed' })).toBe(1)
      expect(await metrics.deadLetters.get({ topic, reason: 'failed', step: 'refuse-3' })).toBe(1)
      // Committed: nothing is left to deliver.
      await until('lag 0', async () => ((await c.lag()) === 0 ? true : undefined), 30_000)
    })

    it('createConsumer() retries a retryable failure until it passes: nothing lost, nothing counted twice', async () => {
      const topic = unique('retry')
      const table = `retry_${name}_${randomBytes(3).toString('hex')}`
      const ch = getClickHouse()
      // A plain MergeTree (no replacing): a second insert of the same rows would count twice,
      // unless the batch token deduplicates it.
      await ch.command({ query: `CREATE TABLE ${table} (n UInt32) ENGINE = MergeTree ORDER BY n SETTINGS non_replicated_deduplication_window = 1000` })
      const metrics = createMetrics()
      const rows = createTableSink<Rec>({ name: 'rows', ch, metrics, tables: (v) => [[table, v.map((r) => ({ n: r.n }))]] })
      const closedPort = await freePort()
      let failures = 0
      // The insert lands, then the acknowledgement is "lost" to a real refused connection,
      // twice: the retries re-insert the same batch with the same token.
      const flaky: Sink<Rec> = {
        name: 'flaky-insert',
        async write(items, ctx) {
          await rows.write(items, ctx)
          if (failures < 2) {
            failures++
            await fetch(`http://127.0.0.1:${closedPort}/`)
          }
        },
      }
      const values = Array.from({ length: 50 }, (_, i) => [`k${i % 5}`, JSON.stringify({ n: i + 1 })] as [string, string])
      await bus.ensureTopics([topic])
      await publish(topic, values)
      const c = createConsumer({ name: 'retry-test', bus, logger, metrics, topic, schema: Rec, sink: flaky, maxAttempts: 1, backoffMs: 20 })
      running.push(c)
      await c.start()
      await until('all rows in', async () => {
        const [r] = await queryRows<{ c: string }>(ch, `SELECT count() AS c FROM ${table}`)
        return Number(r!.c) >= 50 && (await c.lag()) === 0 ? true : undefined
      }, 30_000)
      const [r] = await queryRows<{ c: string; u: string; s: string }>(ch, `SELECT count() AS c, uniqExact(n) AS u, sum(n) AS s FROM ${table}`)
      expect({ count: Number(r!.c), distinct: Number(r!.u), sum: Number(r!.s) }).toEqual({ count: 50, distinct: 50, sum: (50 * 51) / 2 })
      expect(failures).toBe(2)
      // maxAttempts 1 would dead-letter a fatal failure at once: these were retried as retryable.
      expect(await metrics.consumerRetries.get({ consumer: 'retry-test', step: 'flaky-insert', class: 'retryable' })).toBe(2)
      expect(await collect(deadLetterTopic(topic)).then(async (d) => (await new Promise((res) => setTimeout(res, 300)), d.length))).toBe(0)
    })

    it('createConsumer() isolates a row ClickHouse refuses: the batch is written record by record, the poison row dead-lettered with the error, the rest inserted once', async () => {
      const topic = unique('refused')
      const table = `refused_${name}_${randomBytes(3).toString('hex')}`
      const ch = getClickHouse()
      await ch.command({ query: `CREATE TABLE ${table} (n UInt32, d DateTime('UTC')) ENGINE = MergeTree ORDER BY n SETTINGS non_replicated_deduplication_window = 1000` })
      const Dated = z.object({ n: z.number().int(), d: z.string() })
      const metrics = createMetrics()
      await bus.ensureTopics([topic])
      await publish(topic, [1, 2, 3, 4].map((n) => [`k${n}`, JSON.stringify({ n, d: n === 3 ? 'never' : '2026-01-01 00:00:00' })]))
      const c = createConsumer({
        name: 'refused-test', bus, logger, metrics, topic, schema: Dated, maxAttempts: 2, backoffMs: 10,
        sink: createTableSink<z.infer<typeof Dated>>({ name: 'dated-rows', ch, metrics, tables: (v) => [[table, v.map((r) => ({ ...r }))]] }),
      })
      running.push(c)
      await c.start()
      const dead = await collect(deadLetterTopic(topic))
      await until('the refused row dead-lettered', async () => (dead.length >= 1 ? true : undefined), 30_000)
      await until('lag 0', async () => ((await c.lag()) === 0 ? true : undefined), 30_000)
      const rows = await queryRows<{ n: number }>(ch, `SELECT n FROM ${table} ORDER BY n`)
      expect(rows.map((r) => Number(r.n))).toEqual([1, 2, 4])
      expect(dead).toHaveLength(1)
      expect(dead[0]!.key).toBe('k3')
      expect(dead[0]!.headers?.step).toBe('dated-rows')
      expect(dead[0]!.headers?.reason).toMatch(/^failed: .*Code: \d+/s)
    })

    it('createConsumer() holds a record and the ones behind it until the step lets it through, then goes on in order', async () => {
      const topic = unique('hold')
      const acked: number[] = []
      let open = false
      const gate: Step<Rec, Rec> = { name: 'gate', run: (r) => (r.n === 2 && !open ? hold('not yet') : ok(r)) }
      await bus.ensureTopics([topic])
      await publish(topic, [['a', '{"n":1}'], ['a', '{"n":2}'], ['a', '{"n":3}']])
      const c = createConsumer({ name: 'hold-test', bus, logger, metrics: createMetrics(), topic, schema: Rec, steps: [gate], sink: collectingSink(acked) })
      running.push(c)
      await c.start()
      await until('first record', async () => (acked.length >= 1 ? true : undefined), 30_000)
      await new Promise((r) => setTimeout(r, 500))
      expect(acked).toEqual([1])
      open = true
      await until('the rest', async () => (acked.length >= 3 ? true : undefined), 30_000)
      expect(acked).toEqual([1, 2, 3])
    })

    it('createConsumer() with flushEveryMs batches by time: records arriving one at a time during the pause go in one batch', async () => {
      const topic = unique('flush')
      const sizes: number[] = []
      const sink: Sink<Rec> = { name: 'sizes', async write(items) { sizes.push(items.length) } }
      await bus.ensureTopics([topic])
      const c = createConsumer({ name: 'flush-test', bus, logger, metrics: createMetrics(), topic, schema: Rec, sink, flushEveryMs: 1500 })
      running.push(c)
      await c.start()
      await publish(topic, [['k0', '{"n":0}']])
      await until('the first record', async () => (sizes.length ? true : undefined), 30_000)
      // Five records 50 ms apart, all inside the pause that follows the first batch.
      for (let n = 1; n <= 5; n++) {
        await publish(topic, [[`k${n}`, `{"n":${n}}`]])
        await new Promise((r) => setTimeout(r, 50))
      }
      await until('all six records', async () => (sizes.reduce((a, b) => a + b, 0) >= 6 ? true : undefined), 30_000)
      expect(sizes[0]).toBe(1)
      expect(sizes.length, JSON.stringify(sizes)).toBeLessThanOrEqual(3)
    })

    it('createConsumer() with flushAfter: the batch after a pause starts only once flushAfter resolves, and a stop does not wait for it', async () => {
      const topic = unique('flush-after')
      const sizes: number[] = []
      const sink: Sink<Rec> = { name: 'sizes', async write(items) { sizes.push(items.length) } }
      let asked = 0
      let release = () => {}
      const moment = new Promise<void>((r) => (release = r))
      await bus.ensureTopics([topic])
      const c = createConsumer({ name: 'flush-after-test', bus, logger, metrics: createMetrics(), topic, schema: Rec, sink, flushEveryMs: 50, flushAfter: () => (asked++, moment) })
      running.push(c)
      await c.start()
      await publish(topic, [['k0', '{"n":0}']])
      await until('the first record', async () => (sizes.length ? true : undefined), 30_000)
      await publish(topic, [['k1', '{"n":1}']])
      await until('the wait for the moment', async () => (asked > 0 ? true : undefined), 10_000)
      // Its pause is long over; the record waits for the moment.
      await new Promise((r) => setTimeout(r, 400))
      expect(sizes).toEqual([1])
      release()
      await until('the second record', async () => (sizes.length > 1 ? true : undefined), 10_000)
      expect(sizes).toEqual([1, 1])
      // A consumer waiting for a moment that never comes stops at once.
      const idle = unique('flush-never')
      let waiting = false
      let wrote = 0
      await bus.ensureTopics([idle])
      const never = createConsumer({ name: 'flush-never-test', bus, logger, metrics: createMetrics(), topic: idle, schema: Rec, sink: { name: 'count', async write(items) { wrote += items.length } }, flushEveryMs: 10, flushAfter: () => ((waiting = true), new Promise<void>(() => {})) })
      await never.start()
      await publish(idle, [['k0', '{"n":0}']])
      await until('waiting for a moment', async () => (waiting && wrote === 1 ? true : undefined), 30_000)
      const t0 = Date.now()
      await never.stop()
      expect(Date.now() - t0).toBeLessThan(5_000)
    })

    it('createConsumer() with flushEveryMs does not pause while records wait: a sink that took part of a batch gets the rest at once', async () => {
      const topic = unique('partial')
      const seen: number[][] = []
      // Takes at most two records a batch, as a chain sink takes at most its block limit.
      const sink: Sink<Rec> = {
        name: 'two-at-a-time',
        async write(items) {
          seen.push(items.map((i) => i.value.n))
          return { through: items[Math.min(1, items.length - 1)]!.message.offset }
        },
      }
      await bus.ensureTopics([topic])
      await publish(topic, [0, 1, 2, 3, 4, 5].map((n) => [`k${n}`, `{"n":${n}}`] as [string, string]))
      // A pause far longer than the wait below: only batches with nothing left behind may take it.
      const c = createConsumer({ name: 'partial-test', bus, logger, metrics: createMetrics(), topic, schema: Rec, sink, flushEveryMs: 60_000, maxBatchSize: 100 })
      running.push(c)
      await c.start()
      await until('all six records taken', async () => (seen.flat().includes(5) ? true : undefined), 20_000)
      expect(seen.map((b) => b.slice(0, 2)).flat()).toEqual([0, 1, 2, 3, 4, 5])
    })
  })
}
