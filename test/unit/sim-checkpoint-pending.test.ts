import { describe, expect, it } from 'vitest'
import { createLogger } from '../../core/logger.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import { chainTopic } from '../../core/bus/topics.ts'
import type { Bus } from '../../core/bus/types.ts'
import { createSimSource } from '../../pipelines/sources/sim-source.ts'
import { until } from '../setup/until.ts'

describe('createSimSource() while the pipeline has not answered whether its records are stored', () => {
  it('goes on publishing blocks, asks one question at a time, and saves the checkpoint once the answer comes', { timeout: 60_000 }, async () => {
    const inner = createMemoryBus()
    let blocks = 0
    const bus: Pick<Bus, 'ensureTopics' | 'publish'> = {
      ensureTopics: (topics) => inner.ensureTopics(topics),
      async publish(topic, records) {
        if (topic === chainTopic(4663)) blocks += records.length
        await inner.publish(topic, records)
      },
    }
    let release!: () => void
    const answered = new Promise<void>((resolve) => (release = resolve))
    let asked = 0
    let pending = 0
    let mostPendingAtOnce = 0
    const saved: number[] = []
    const sim = createSimSource({
      bus, logger: createLogger('silent', 'test'), chainId: 4663, seed: 11, blockSeconds: 2, start: { fromBlock: 1, genesis: 1_000_000 }, untilBlock: 1_000, progressEveryMs: 0,
      checkpoints: {
        everyMs: 0,
        // The pipeline's thread busy with a batch: the answer comes when the test says.
        async durable() {
          asked++
          mostPendingAtOnce = Math.max(mostPendingAtOnce, ++pending)
          await answered
          pending--
          return true
        },
        save: (cp) => void saved.push(cp.block),
      },
    })
    const running = sim.run()
    // Every block is published while the first question is still unanswered.
    await until('the 1,000 blocks published', () => (blocks >= 1_000 ? true : undefined), 30_000)
    expect(asked).toBe(1)
    expect(saved).toEqual([])
    release()
    await running
    expect(mostPendingAtOnce).toBe(1)
    // The last checkpoint stored covers the whole run.
    expect(saved.at(-1)).toBeGreaterThanOrEqual(1_000)
    await sim.stop()
    await inner.close()
  })
})
