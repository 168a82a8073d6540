import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BatchControl, Bus, BusBatch, BusMessage, BusRecord, SubscribeOptions, Subscription } from '../../core/bus/types.ts'

/**
 * The delivery rules every Bus implementation must keep. Each test uses its own topics and
 * groups, so suites may share one broker and run again without cleanup.
 */
export function busContract(name: string, makeBus: () => Bus | Promise<Bus>): void {
  describe(`Bus contract: ${name}`, () => {
    let bus: Bus
    const open: Subscription[] = []

    beforeAll(async () => {
      bus = await makeBus()
    })
    afterAll(async () => {
      await Promise.all(open.map((s) => s.stop()))
      await bus?.close()
    })

    const unique = (what: string) => `contract.${name}.${what}.${randomBytes(4).toString('hex')}`

    /** Subscribes with a handler that records every delivered batch. */
    async function consume(
      opts: Partial<SubscribeOptions> & Pick<SubscribeOptions, 'groupId' | 'topics'>,
      handle?: (batch: BusBatch, control: BatchControl) => Promise<void> | void,
    ) {
      const batches: BusBatch[] = []
      const sub = await bus.subscribe({
        fromBeginning: true,
        ...opts,
        async onBatch(batch, control) {
          batches.push(batch)
          await handle?.(batch, control)
        },
      })
      open.push(sub)
      return {
        sub,
        batches,
        messages: () => batches.flatMap((b) => b.messages),
        values: () => batches.flatMap((b) => b.messages.map((m) => m.value)),
      }
    }

    it('ping() answers and ensureTopics() may be called twice', async () => {
      await bus.ping()
      const topic = unique('ensure')
      await bus.ensureTopics([topic])
      await bus.ensureTopics([topic, topic])
    })

    it('publish() keeps order within a key', async () => {
      const topic = unique('order')
      await bus.ensureTopics([topic])
      const sent: BusRecord[] = []
      for (let round = 0; round < 5; round++) {
        const records = Array.from({ length: 20 }, (_, i) => ({ key: `k${i % 3}`, value: `${round}:${i}` }))
        sent.push(...records)
        await bus.publish(topic, records)
      }
      const c = await consume({ groupId: unique('g'), topics: [topic] })
      await waitUntil(() => c.values().length >= sent.length, 'all 100 messages')

      for (const key of ['k0', 'k1', 'k2']) {
        const got = c.messages().filter((m) => m.key === key).map((m) => m.value)
        expect(got).toEqual(sent.filter((r) => r.key === key).map((r) => r.value))
      }
      expectContiguous(c.messages())
    })

    it('subscribe() delivers keys, values, headers, offsets and timestamps as published', async () => {
      const topic = unique('fields')
      const before = Date.now()
      await bus.publish(topic, [
        { key: 'a', value: '{"n":1}', headers: { reason: 'test', step: 'decode' } },
        { key: null, value: '' },
        { key: 'ü', value: 'ünïcødé ✓' },
      ])
      const c = await consume({ groupId: unique('g'), topics: [topic] })
      await waitUntil(() => c.values().length >= 3, '3 messages')
      const [m1, m2, m3] = c.messages()
      expect(m1).toMatchObject({ topic, key: 'a', value: '{"n":1}', headers: { reason: 'test', step: 'decode' } })
      expect(m2).toMatchObject({ key: null, value: '' })
      expect(m3).toMatchObject({ key: 'ü', value: 'ünïcødé ✓' })
      expect(typeof m1.offset).toBe('string')
      expect(m1.timestamp).toBeGreaterThanOrEqual(before - 1000)
      expect(m1.timestamp).toBeLessThanOrEqual(Date.now() + 1000)
      expect(BigInt(c.batches[0].highWatermark)).toBeGreaterThan(BigInt(m1.offset))
    })

    it('maxBatchSize bounds every batch', async () => {
      const topic = unique('bounded')
      await bus.publish(topic, records(25))
      const c = await consume({ groupId: unique('g'), topics: [topic], maxBatchSize: 10 })
      await waitUntil(() => c.values().length >= 25, '25 messages')
      expect(Math.max(...c.batches.map((b) => b.messages.length))).toBeLessThanOrEqual(10)
      expect(c.values()).toEqual(records(25).map((r) => r.value))
    })

    it('a consumer wakes up for records published while it waits', async () => {
      const topic = unique('wake')
      await bus.ensureTopics([topic])
      const c = await consume({ groupId: unique('g'), topics: [topic] })
      for (let i = 0; i < 3; i++) {
        await sleep(150)
        const sentAt = Date.now()
        await bus.publish(topic, [{ key: 'k', value: `late-${i}` }])
        await waitUntil(() => c.values().includes(`late-${i}`), `late-${i}`)
        // Well under the Kafka long-poll time: delivery is pushed, not found by slow polling.
        expect(Date.now() - sentAt).toBeLessThan(2_000)
      }
      expect(c.values()).toEqual(['late-0', 'late-1', 'late-2'])
    })

    it('a handler that throws gets the same messages again, and nothing is lost', async () => {
      const topic = unique('throw')
      await bus.publish(topic, records(5))
      const errors: unknown[] = []
      let calls = 0
      const c = await consume(
        {
          groupId: unique('g'),
          topics: [topic],
          onError: (err) => errors.push(err),
        },
        () => {
          calls++
          if (calls <= 2) throw new Error(`boom ${calls}`)
        },
      )
      await waitUntil(() => calls >= 3 && c.values().filter((v) => v === 'v4').length === 3, 'third, successful delivery')
      // Three deliveries of the same first batch: two failed, one done.
      expect(errors.map((e) => (e as Error).message)).toEqual(['boom 1', 'boom 2'])
      const firstOffsets = c.batches.slice(0, 3).map((b) => b.messages[0].offset)
      expect(new Set(firstOffsets).size).toBe(1)
      expect(c.batches[0].messages.map((m) => m.value)).toEqual(c.batches[2].messages.map((m) => m.value))
      await waitUntil(async () => (await c.sub.lag()) === 0, 'lag 0 after the successful retry')
      await sleep(300)
      expect(calls).toBe(3)
    })

    it('doneThrough() commits only through that offset and delivers the rest again', async () => {
      const topic = unique('partial')
      await bus.publish(topic, records(10))
      let heldBack = false
      let cut = ''
      const c = await consume({ groupId: unique('g'), topics: [topic] }, (batch, control) => {
        if (!heldBack && batch.messages.length >= 4) {
          heldBack = true
          cut = batch.messages[3].offset
          control.doneThrough(cut)
        }
      })
      // Done once the held-back tail has come again, through v9.
      await waitUntil(() => c.batches.length >= 2 && c.batches.at(-1)!.messages.at(-1)!.value === 'v9', 'the rest again')
      const first = c.batches[0].messages
      const second = c.batches[1].messages
      // The next batch starts right after the cut: nothing before it is repeated...
      expect(second[0].offset).toBe(String(BigInt(cut) + 1n))
      expect(second[0].value).toBe(first[4]?.value ?? 'v4')
      // ...and each message is done exactly once.
      const counts = countBy(c.values())
      for (const v of ['v0', 'v1', 'v2', 'v3']) expect(counts.get(v)).toBe(1)
      await waitUntil(async () => (await c.sub.lag()) === 0, 'lag 0')
    })

    it('a second consumer in the same group resumes from the committed offset after stop()', async () => {
      const topic = unique('resume')
      const groupId = unique('g')
      await bus.publish(topic, records(6))
      let cut = ''
      const a = await consume({ groupId, topics: [topic] }, (batch, control) => {
        // Done through v3 and never further: v4 and v5 stay for whoever comes next.
        const v3 = batch.messages.find((m) => m.value === 'v3')
        if (v3) cut = v3.offset
        control.doneThrough(v3 ? v3.offset : String(BigInt(batch.messages[0].offset) - 1n))
      })
      await waitUntil(() => cut !== '', 'the first consumer reached v3')
      await a.sub.stop()

      await bus.publish(topic, records(4, 6))
      const b = await consume({ groupId, topics: [topic] })
      await waitUntil(() => b.values().includes('v9'), 'the second consumer reached v9')
      await sleep(300)
      // No loss: v4..v9 all arrive; no repeat: nothing through v3 is seen again.
      expect(b.values()).toEqual(['v4', 'v5', 'v6', 'v7', 'v8', 'v9'])
      expect(b.messages()[0].offset).toBe(String(BigInt(cut) + 1n))
    })

    it('stop() waits for the running handler and keeps what it did', async () => {
      const topic = unique('stop')
      const groupId = unique('g')
      await bus.publish(topic, records(3))
      let entered = false
      let finished = false
      const a = await consume({ groupId, topics: [topic] }, async () => {
        entered = true
        await sleep(700)
        finished = true
      })
      await waitUntil(() => entered, 'the handler started')
      await a.sub.stop()
      expect(finished).toBe(true)

      await bus.publish(topic, [{ key: 'k', value: 'after' }])
      const b = await consume({ groupId, topics: [topic] })
      await waitUntil(() => b.values().includes('after'), 'the new record')
      const doneByA = new Set(a.values())
      expect(b.values().filter((v) => doneByA.has(v))).toEqual([])
    })

    it('two live consumers in one group together see every message', async () => {
      const topic = unique('shared')
      const groupId = unique('g')
      await bus.publish(topic, records(20))
      const a = await consume({ groupId, topics: [topic] })
      const b = await consume({ groupId, topics: [topic] })
      await bus.publish(topic, records(20, 20))
      const all = () => new Set([...a.values(), ...b.values()])
      await waitUntil(() => all().size === 40, 'all 40 values across both members')
      await waitUntil(async () => (await a.sub.lag()) + (await b.sub.lag()) === 0, 'no lag left in the group')
    })

    it('separate groups each see every message', async () => {
      const topic = unique('fanout')
      await bus.publish(topic, records(8))
      const one = await consume({ groupId: unique('g1'), topics: [topic] })
      const two = await consume({ groupId: unique('g2'), topics: [topic] })
      await bus.publish(topic, records(2, 8))
      await waitUntil(() => one.values().length >= 10 && two.values().length >= 10, 'both groups got 10')
      expect(one.values()).toEqual(records(10).map((r) => r.value))
      expect(two.values()).toEqual(records(10).map((r) => r.value))
    })

    it('fromBeginning: false skips what was published before the group existed', async () => {
      const topic = unique('latest')
      await bus.publish(topic, records(3))
      const c = await consume({ groupId: unique('g'), topics: [topic], fromBeginning: false })
      await bus.publish(topic, [{ key: 'k', value: 'new' }])
      await waitUntil(() => c.values().includes('new'), 'the new record')
      await sleep(300)
      expect(c.values()).toEqual(['new'])
    })

    it('subscribe() to several topics delivers each topic in its own batches', async () => {
      const t1 = unique('multi1')
      const t2 = unique('multi2')
      await bus.publish(t1, records(3))
      await bus.publish(t2, records(2))
      const c = await consume({ groupId: unique('g'), topics: [t1, t2] })
      await waitUntil(() => c.values().length >= 5, '5 messages')
      for (const b of c.batches) expect(new Set(b.messages.map((m) => m.topic))).toEqual(new Set([b.topic]))
      expect(c.messages().filter((m) => m.topic === t1).map((m) => m.value)).toEqual(['v0', 'v1', 'v2'])
      expect(c.messages().filter((m) => m.topic === t2).map((m) => m.value)).toEqual(['v0', 'v1'])
    })

    it('lag() counts messages not yet done and falls to 0 once they are', async () => {
      const topic = unique('lag')
      await bus.publish(topic, records(10))
      let release = false
      const c = await consume({ groupId: unique('g'), topics: [topic] }, (batch, control) => {
        // Hold everything back until released: nothing is done, so all 10 count as lag.
        if (!release) control.doneThrough(String(BigInt(batch.messages[0].offset) - 1n))
      })
      await waitUntil(() => c.batches.length >= 1, 'a first delivery')
      expect(await c.sub.lag()).toBe(10)
      release = true
      await waitUntil(async () => (await c.sub.lag()) === 0, 'lag 0 after release')
      await bus.publish(topic, records(2, 10))
      await waitUntil(() => c.values().includes('v11'), 'v11')
      await waitUntil(async () => (await c.sub.lag()) === 0, 'lag 0 again')
    })
  })
}

function records(n: number, from = 0): BusRecord[] {
  return Array.from({ length: n }, (_, i) => ({ key: 'k', value: `v${from + i}` }))
}

function countBy(values: string[]): Map<string, number> {
  const m = new Map<string, number>()
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1)
  return m
}

function expectContiguous(messages: BusMessage[]): void {
  const byPartition = new Map<string, bigint[]>()
  for (const m of messages) {
    const key = `${m.topic}/${m.partition}`
    byPartition.set(key, [...(byPartition.get(key) ?? []), BigInt(m.offset)])
  }
  for (const offsets of byPartition.values()) {
    offsets.forEach((o, i) => i > 0 && expect(o).toBe(offsets[i - 1] + 1n))
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}

async function waitUntil(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}
