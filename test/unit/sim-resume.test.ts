import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../core/logger.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import { trackConsumption } from '../../pipelines/sim/consumption.ts'
import { createSimSource, type SimStart } from '../../pipelines/sources/sim-source.ts'
import { TOPICS } from '../../core/bus/topics.ts'
import { until } from '../setup/until.ts'
import { createBackfillMeter, formatProgress } from '../../pipelines/sim/backfill-progress.ts'
import { createChainSimulator, type BlockSummary, type SimLaunch } from '../../pipelines/sim/chain-sim.ts'
import { createRng } from '../../pipelines/sim/prng.ts'
import { readSocialCheckpoint, socialCheckpointPath, writeSocialCheckpoint } from '../../pipelines/sim/social-checkpoint.ts'
import { createSocialSimulator, type SocialBatch } from '../../pipelines/sim/social-sim.ts'

// Past the first follow poll after the baseline (6 h) so the follow graph has evolved.
const BLOCKS = 3 * 3600 + 100
const SPLIT = 2 * 3600 + 17

/** The chain's blocks as the social world reads them, without ABI encoding. */
function summaries(seed: number, blocks: number): Array<{ block: BlockSummary; launched: readonly SimLaunch[] }> {
  const out: Array<{ block: BlockSummary; launched: readonly SimLaunch[] }> = []
  createChainSimulator({ chainId: 4663, seed }).skipTo(blocks + 1, (block, launched) => out.push({ block, launched }))
  return out
}

const CHAIN = summaries(7, BLOCKS)
const straight = (() => {
  const s = createSocialSimulator({ seed: 7, chainId: 4663 })
  return CHAIN.map(({ block, launched }) => s.onBlock(block, launched))
})()
const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

describe('Rng save/load', () => {
  it('Rng.load() continues the draws from a saved position', () => {
    const a = createRng('x')
    for (let i = 0; i < 10; i++) a.u32()
    const b = createRng('other')
    b.load(JSON.parse(JSON.stringify(a.save())))
    expect(Array.from({ length: 5 }, () => b.u32())).toEqual(Array.from({ length: 5 }, () => a.u32()))
  })
})

describe('ChainSimulator.skipTo(n, visit)', () => {
  it('ChainSimulator.skipTo() shows the same numbers, times, log addresses and launches as nextBlock()', () => {
    const sim = createChainSimulator({ chainId: 4663, seed: 7 })
    for (const { block, launched } of CHAIN.slice(0, 2000)) {
      const b = sim.nextBlock()
      expect({ number: b.number, timestamp: b.timestamp, logs: b.logs.map((l) => ({ address: l.address })) }).toEqual(block)
      expect(sim.launched).toEqual(launched)
    }
  })
})

describe('SocialSimulator snapshot()', () => {
  it('a social world restored from a JSON snapshot publishes exactly what the original would', () => {
    const first = createSocialSimulator({ seed: 7, chainId: 4663 })
    CHAIN.slice(0, SPLIT).forEach(({ block, launched }) => first.onBlock(block, launched))
    const state = JSON.parse(JSON.stringify(first.snapshot()))
    const resumed = createSocialSimulator({ seed: 7, chainId: 4663, state })
    expect(resumed.lastBlock).toBe(SPLIT)
    const rest: SocialBatch[] = CHAIN.slice(SPLIT).map(({ block, launched }) => resumed.onBlock(block, launched))
    expect(rest).toEqual(straight.slice(SPLIT))
    expect(rest.flatMap((b) => b.posts).length).toBeGreaterThan(100)
    expect(rest.flatMap((b) => b.follows).length).toBeGreaterThan(0)
  })

  it('a restored social world refuses a block that does not follow its checkpoint', () => {
    const first = createSocialSimulator({ seed: 7, chainId: 4663 })
    CHAIN.slice(0, 100).forEach(({ block, launched }) => first.onBlock(block, launched))
    const resumed = createSocialSimulator({ seed: 7, chainId: 4663, state: first.snapshot() })
    expect(() => resumed.onBlock(CHAIN[200]!.block, [])).toThrow(/expected block 101/)
  })
})

describe('social checkpoint file', () => {
  const world = { chainId: 4663, seed: 7, genesis: 1_000_000, blockSeconds: 2 }
  it('writeSocialCheckpoint() then readSocialCheckpoint() gives the checkpoint back for the same world only', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-cp-'))
    dirs.push(dir)
    const path = socialCheckpointPath(dir, 4663)
    expect(readSocialCheckpoint(path, world)).toEqual({ reason: 'no social checkpoint' })
    const s = createSocialSimulator({ seed: 7, chainId: 4663 })
    s.onBlock(CHAIN[0]!.block, CHAIN[0]!.launched)
    writeSocialCheckpoint(path, { version: 1, ...world, block: 1, state: s.snapshot() })
    const back = readSocialCheckpoint(path, world)
    expect('checkpoint' in back && back.checkpoint.block).toBe(1)
    expect(readSocialCheckpoint(path, { ...world, genesis: 5 })).toEqual({ reason: 'social checkpoint is of another world (genesis 1000000 != 5)' })
    writeFileSync(path, '{oops')
    expect(readSocialCheckpoint(path, world)).toEqual({ reason: 'social checkpoint is not JSON' })
  })
})

describe('backfill progress', () => {
  it('createBackfillMeter() reports blocks done, the recent rate and the time left', () => {
    const m = createBackfillMeter(43_200, 0, 10_000)
    expect(m.sample(0, 0)).toMatchObject({ done: 0, blocksPerSec: 0, etaSec: null, finished: false })
    const p = m.sample(5_000, 5_000)
    expect(p).toMatchObject({ done: 5_000, total: 43_200, blocksPerSec: 1_000, finished: false })
    expect(p.etaSec).toBeCloseTo(38.2)
    expect(formatProgress(p)).toBe('backfill 5000/43200 blocks (11%), 1000 blocks/s, about 39 s left')
    // The rate follows the last window, not the whole run: a slow start is forgotten.
    m.sample(10_000, 10_000)
    m.sample(30_000, 20_000)
    expect(m.sample(40_000, 25_000).blocksPerSec).toBe(2_000)
    expect(m.sample(50_000, 26_000)).toMatchObject({ done: 43_200, etaSec: 0, finished: true })
  })

  it('formatProgress() names minutes for long backfills and admits an unknown rate', () => {
    expect(formatProgress({ done: 100, total: 100_000, blocksPerSec: 200, etaSec: 499.5, stalledSec: null, finished: false })).toBe('backfill 100/100000 blocks (0%), 200 blocks/s, about 8 min 20 s left')
    expect(formatProgress({ done: 0, total: 10, blocksPerSec: 0, etaSec: null, stalledSec: null, finished: false })).toBe('backfill 0/10 blocks (0%), 0 blocks/s, time left unknown')
  })

  it('createBackfillMeter() promises no time left while nothing moves, and does again once it moves', () => {
    const m = createBackfillMeter(20_000, 0, 15_000, 5_000)
    expect(m.sample(1_400, 2_000).etaSec).toBeCloseTo(26.6, 0)
    // A publish refused over and over: the count stands still; the window's average alone would
    // still show 350 blocks/s and an estimate.
    expect(m.sample(1_400, 4_000).etaSec).not.toBeNull()
    const stalled = m.sample(1_400, 8_000)
    expect(stalled).toMatchObject({ blocksPerSec: 0, etaSec: null, stalledSec: 6, finished: false })
    expect(formatProgress(stalled)).toBe('backfill 1400/20000 blocks (7%), no progress for 6 s, time left unknown')
    expect(formatProgress(m.sample(1_400, 30_000))).toBe('backfill 1400/20000 blocks (7%), no progress for 28 s, time left unknown')
    const moving = m.sample(2_000, 31_000)
    expect(moving.stalledSec).toBeNull()
    expect(moving.etaSec).not.toBeNull()
  })
})

describe('trackConsumption()', () => {
  it('trackConsumption() counts a topic as consumed once its consumer has finished the records', async () => {
    const tracker = trackConsumption(createMemoryBus({ retryDelayMs: 5 }))
    await tracker.bus.ensureTopics(['t'])
    expect(await tracker.consumed('t')).toBeNull()
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const sub = await tracker.bus.subscribe({ groupId: 'g', topics: ['t'], onBatch: () => gate })
    await tracker.bus.publish('t', [{ key: 'a', value: '1' }, { key: 'a', value: '2' }])
    expect(await tracker.consumed('t')).toBe(0)
    release()
    await until('both records consumed', async () => ((await tracker.consumed('t')) === 2 ? true : undefined))
    await sub.stop()
    expect(await tracker.consumed('t')).toBeNull()
  })
})

describe('createSimSource() social checkpoints', () => {
  const quiet = createLogger('silent', 'test')
  const run = async (durable: boolean) => {
    const saved: number[] = []
    const bus = createMemoryBus()
    const sim = createSimSource({
      bus, logger: quiet, chainId: 4663, seed: 7, blockSeconds: 2, start: { fromBlock: 1, genesis: 1_000_000 }, untilBlock: 300, progressEveryMs: 0,
      checkpoints: { save: (cp) => saved.push(cp.block), durable: async () => durable, everyMs: 0 },
    })
    await sim.run()
    await bus.close()
    return saved
  }

  it('createSimSource() saves a checkpoint only for records that are stored, ending at the last block', async () => {
    expect(await run(false)).toEqual([])
    const saved = await run(true)
    expect(saved.at(-1)).toBe(300)
    expect(saved).toEqual([...saved].sort((a, b) => a - b))
  })

  it('createSimSource() resumed from a checkpoint publishes the social records after it, and only those', async () => {
    const records = async (start: SimStart, until: number) => {
      const bus = createMemoryBus()
      const sim = createSimSource({ bus, logger: quiet, chainId: 4663, seed: 7, blockSeconds: 2, start, untilBlock: until, progressEveryMs: 0 })
      const posts: string[] = []
      await bus.subscribe({ groupId: 'g', topics: [TOPICS.socialPosts], onBatch: async (b) => void posts.push(...b.messages.map((m) => m.value)) })
      await sim.run()
      await new Promise((r) => setTimeout(r, 50))
      await bus.close()
      return posts
    }
    const all = await records({ fromBlock: 1, genesis: 1_000_000 }, 1500)
    const social = createSocialSimulator({ seed: 7, chainId: 4663, blockTimeSec: 2 })
    for (const { block, launched } of CHAIN.slice(0, 1000)) social.onBlock({ ...block, timestamp: 1_000_000 + block.number * 2 }, launched)
    // The chain was ingested through 1200, the social world stored through 1000.
    const resumed = await records({ fromBlock: 1201, genesis: 1_000_000, social: { block: 1000, state: social.snapshot() } }, 1500)
    const after1000 = all.filter((p) => Number((JSON.parse(p) as { id: string }).id.split('-')[1]) > 1000)
    expect(resumed.length).toBeGreaterThan(0)
    expect(resumed.sort()).toEqual(after1000.sort())
  })
  it('a stop waits for the last records while the chain still ingests them, and gives up once it stalls', async () => {
    // 100 blocks published; the chain ingests 10 every 100 ms (about a second, three drains
    // long); their records count as stored once the chain has passed the simulator's head.
    const stopAt = async (advance: boolean) => {
      let ingested = 0
      const saved: number[] = []
      const bus = createMemoryBus()
      const sim = createSimSource({
        bus, logger: quiet, chainId: 4663, seed: 7, blockSeconds: 2, progressEveryMs: 0, maxAheadBlocks: 1000,
        start: { fromBlock: 1, genesis: Math.floor(Date.now() / 1000) - 200 },
        ingested: () => ingested,
        checkpoints: { save: (cp) => saved.push(cp.block), durable: async () => ingested >= sim.nextBlock() - 1, everyMs: 0, drainMs: 300 },
      })
      void sim.run()
      await until('the backfill published', async () => (sim.nextBlock() > 100 ? true : undefined))
      const chain = advance ? setInterval(() => (ingested = Math.min(ingested + 10, sim.nextBlock() - 1)), 100) : undefined
      const t0 = Date.now()
      await sim.stop()
      clearInterval(chain)
      await bus.close()
      return { saved, head: sim.nextBlock() - 1, ms: Date.now() - t0 }
    }
    const ingesting = await stopAt(true)
    // The stop publishes one more block without its social records: the world is stored through the one before.
    expect(ingesting.saved.at(-1)).toBe(ingesting.head - 1)
    expect(ingesting.ms).toBeGreaterThan(300)
    const stalled = await stopAt(false)
    expect(stalled.saved).toEqual([])
    expect(stalled.ms).toBeLessThan(2_000)
  })
})
