import { describe, expect, it } from 'vitest'
import { PublishRefusedError } from '../../core/bus/publish-errors.ts'
import type { Bus, BusRecord } from '../../core/bus/types.ts'
import { createLogger } from '../../core/logger.ts'
import { DEFAULT_START_TIME } from '../../pipelines/sim/chain-sim.ts'
import type { SocialCheckpoint } from '../../pipelines/sim/social-checkpoint.ts'
import { createSimSource, type SimSourceOptions } from '../../pipelines/sources/sim-source.ts'
import { createSimSourceInWorker } from '../../pipelines/sources/sim-in-worker.ts'

/**
 * `svc start` runs its simulated chains in worker threads (sim-in-worker.ts). The same world must
 * come out as from the simulator on the main thread: every record, in order, on every topic, the
 * same social checkpoint, paced by the chain's ingestion, and a publish refused for good stops it.
 */

const BLOCKS = 600
const logger = createLogger('warn', 'sim-in-worker-test')

/** What a simulator published, by topic in order: the sink the simulator writes to. */
function recordingBus(refuse?: string): Pick<Bus, 'ensureTopics' | 'publish'> & { topics: Map<string, BusRecord[]> } {
  const topics = new Map<string, BusRecord[]>()
  return {
    topics,
    ensureTopics: async () => {},
    publish: async (topic, records) => {
      if (topic === refuse) throw new PublishRefusedError(topic, 'MESSAGE_TOO_LARGE', 'refused in the test')
      topics.set(topic, [...(topics.get(topic) ?? []), ...records])
    },
  }
}

function options(bus: Pick<Bus, 'ensureTopics' | 'publish'>, saved: Array<Pick<SocialCheckpoint, 'block' | 'state'>>): SimSourceOptions {
  return {
    bus, logger, chainId: 4663, seed: 7, blockSeconds: 2, start: { fromBlock: 1, genesis: DEFAULT_START_TIME }, untilBlock: BLOCKS,
    progressEveryMs: 0, checkpoints: { save: (cp) => void saved.push(cp) },
  }
}

describe('the simulator in a worker thread', () => {
  it('publishes the same records in the same order on every topic, and stores the same social checkpoint, as on the main thread', async () => {
    const here = recordingBus()
    const hereSaved: Array<Pick<SocialCheckpoint, 'block' | 'state'>> = []
    await createSimSource(options(here, hereSaved)).run()

    const there = recordingBus()
    const thereSaved: Array<Pick<SocialCheckpoint, 'block' | 'state'>> = []
    const inWorker = createSimSourceInWorker({ ...options(there, thereSaved), logName: 'sim-test' })
    await inWorker.run()

    expect([...there.topics.keys()].sort()).toEqual([...here.topics.keys()].sort())
    expect(here.topics.get('chain.4663.logs')).toHaveLength(BLOCKS)
    for (const [topic, records] of here.topics) expect(there.topics.get(topic), topic).toEqual(records)
    expect(thereSaved.at(-1)).toEqual(hereSaved.at(-1))
    expect(hereSaved.at(-1)!.block).toBe(BLOCKS)
    expect(inWorker.nextBlock()).toBe(BLOCKS + 1)
  }, 120_000)

  it('stays within maxAheadBlocks of what the chain ingested, and goes on as it is told the chain ingested more', async () => {
    const bus = recordingBus()
    let ingested = 0
    // Told only by ingestedMoved: its own look at `ingested` is a minute away.
    const source = createSimSourceInWorker({ ...options(bus, []), maxAheadBlocks: 100, chunk: 50, ingested: () => ingested, ingestedPollMs: 60_000, logName: 'sim-test' })
    const running = source.run()
    const published = () => bus.topics.get('chain.4663.logs')?.length ?? 0
    const until = async (done: () => boolean) => {
      const deadline = Date.now() + 20_000
      while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    }
    await until(() => published() > 0)
    // Unpaced, the 600 blocks would be out well within this second.
    await new Promise((r) => setTimeout(r, 1_000))
    // One chunk past the bound at most: the pace is checked before each chunk.
    expect(published()).toBeGreaterThan(0)
    expect(published()).toBeLessThanOrEqual(150)
    ingested = 300
    // Not told yet: it waits.
    await new Promise((r) => setTimeout(r, 500))
    expect(published()).toBeLessThanOrEqual(150)
    source.ingestedMoved()
    await until(() => published() >= 400)
    expect(published()).toBeGreaterThanOrEqual(400)
    expect(published()).toBeLessThanOrEqual(450)
    ingested = BLOCKS
    source.ingestedMoved()
    await running
    expect(published()).toBe(BLOCKS)
  }, 60_000)

  it('stops with the reason when the bus refuses a publish for good', async () => {
    const source = createSimSourceInWorker({ ...options(recordingBus('chain.4663.logs'), []), logName: 'sim-test' })
    await expect(source.run()).rejects.toThrow(/refused a publish on chain\.4663\.logs/)
  }, 60_000)
})
