import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../core/config.ts'
import { createLogger } from '../../core/logger.ts'
import { createMetrics } from '../../core/metrics.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import { followed4663 } from '../../bin/follow.ts'
import { createConsumer } from '../../pipelines/consumer/create-consumer.ts'
import { ok, type Step } from '../../pipelines/consumer/step-result.ts'
import { chainRows, memoryRowsState } from '../../pipelines/process/chain-rows.ts'
import { createChainSimulator } from '../../pipelines/sim/chain-sim.ts'
import { until } from '../setup/until.ts'

/**
 * Long synchronous work hands the event loop turns (core/loop-turns.ts): a timer set when a large
 * batch starts runs before the batch ends. Without the turns, the pipeline's process answered
 * nothing (its API process's questions, /health's bus check) for seconds while it caught up.
 */

/** Whether a 0 ms timer set now fires before `work` settles, and how long the work took. */
async function timerFiresDuring(work: () => Promise<unknown>): Promise<{ fired: boolean; ms: number }> {
  let fired = false
  const timer = setTimeout(() => (fired = true), 0)
  const started = performance.now()
  await work()
  const ms = performance.now() - started
  const firedDuring = fired
  clearTimeout(timer)
  return { fired: firedDuring, ms }
}

describe('turns of the event loop during long work', () => {
  it('chainRows() over a backfill-sized batch lets a timer run before it answers', async () => {
    const sim = createChainSimulator({ chainId: 4663, seed: 21 })
    const blocks = Array.from({ length: 6000 }, () => sim.nextBlock())
    const r = await timerFiresDuring(() => chainRows(4663, blocks, memoryRowsState(followed4663(loadConfig({})))))
    // The check means something only if the work outlasted a slice (20 ms) by far.
    expect(r.ms).toBeGreaterThan(100)
    expect(r.fired).toBe(true)
  })

  it('the consumer loop lets a timer run while it takes a batch of many records through its steps', async () => {
    const bus = createMemoryBus()
    const topic = 'turns.records'
    const Rec = z.object({ n: z.number().int() })
    // 1 ms of synchronous work per record: a batch of 400 holds the loop for 400 ms without turns.
    const busy: Step<z.infer<typeof Rec>, z.infer<typeof Rec>> = {
      name: 'busy',
      run(r) {
        const until = performance.now() + 1
        while (performance.now() < until);
        return ok(r)
      },
    }
    let batchStarted: ((v: void) => void) | undefined
    const started = new Promise<void>((r) => (batchStarted = r))
    const seen: number[] = []
    let firedDuringBatch: boolean | undefined
    let fired = false
    const c = createConsumer({
      name: 'turns', bus, logger: createLogger('silent'), metrics: createMetrics({ processMetrics: false }), topic, schema: Rec,
      steps: [{ name: 'first', run(r: z.infer<typeof Rec>) {
        if (r.n === 0) {
          setTimeout(() => (fired = true), 0)
          batchStarted?.()
        }
        return ok(r)
      } }, busy],
      sink: { name: 'collect', async write(items) {
        // The sink sees the batch after every record went through the steps.
        if (firedDuringBatch === undefined) firedDuringBatch = fired
        seen.push(...items.map((i) => i.value.n))
      } },
      maxBatchSize: 1000,
    })
    await bus.ensureTopics([topic])
    await bus.publish(topic, Array.from({ length: 400 }, (_, n) => ({ key: 'k', value: JSON.stringify({ n }) })))
    await c.start()
    await started
    await until('the batch written', () => (seen.length >= 400 ? true : undefined), 30_000)
    await c.stop()
    await bus.close()
    expect(seen.slice(0, 3)).toEqual([0, 1, 2])
    expect(firedDuringBatch).toBe(true)
  })
})
