import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cacheLookupCounts } from '../../core/metrics.ts'
import { structureReport, type StructureAnswer } from '../../products/structure/structure-report.ts'
import { structureAnswer } from '../../products/structure/structure-serving.ts'
import { ConstructedWorld, ingestWorld, weth } from '../setup/constructed-world.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { until } from '../setup/until.ts'
import { watchedEngine } from '../setup/watched-engine.ts'

/**
 * /structure answers are kept per token and only their window is read anew while the window
 * slides over blocks without the token (products/structure/structure-serving.ts). This holds the kept
 * answer against a fresh computation from the engine while the window slides, when a transfer
 * of the token leaves the window, when the token moves, and across a reorg.
 */
let env: Embedded
const T0 = 1_760_100_000
const HOUR = 3600

/** The API's deps with a keeper of its own (kept per token serving object) whose window reads (block_times) are counted. */
let deps: Embedded['api']['deps']
let windowReads = 0

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '4' }, { social: false })
  const counted = watchedEngine(env.api.deps.ch, 'query', (args) => {
    if (args.query.includes('block_times')) windowReads++
  })
  deps = { ...env.api.deps, ch: counted, tokens: Object.create(env.api.deps.tokens) as typeof env.api.deps.tokens }
}, 120_000)
afterAll(async () => env?.close())

// Until the API serves the head too: its batch's changes are applied before anything is read.
const ingest = (w: ConstructedWorld) =>
  ingestWorld(w, { bus: env.rt.bus, ch: env.rt.ch, watermark: () => env.processor.watermark() }, async () => {
    await env.api.deps.tokens.sync()
    return env.api.deps.tokens.measuredThrough() === w.head
  })

/** The kept answer as the endpoint reads it, and a fresh one computed from the engine at the same block. */
async function keptAndFresh(token: string): Promise<{ kept: StructureAnswer; fresh: StructureAnswer }> {
  await env.api.deps.tokens.sync()
  const served = env.api.deps.tokens.measuredThrough()!
  const kept = await structureAnswer(deps, 4663, token, served)
  return { kept, fresh: await structureReport(env.rt.ch, 4663, token, served) }
}

/** An hour of blocks in which only the busy token moves. */
function quietHours(w: ConstructedWorld, hours: number, busy: string, from: string): void {
  for (let h = 0; h < hours; h++) {
    w.block(HOUR)
    w.transfer(busy, from, w.address('b05e'), 1n)
  }
}

describe('/structure kept per token', () => {
  it('equals a fresh computation while the window slides (each served block\'s window read before anyone asks), when a transfer leaves it, when the token moves, and after a reorg', { timeout: 240_000 }, async () => {
    const w = new ConstructedWorld(0, T0, 'a5')
    const busyDeployer = w.address('de9b')
    w.block(HOUR)
    const busy = w.create(busyDeployer, 'BUSY')
    // A full day of history first, so the window is 24 h and its baseline moves with each block.
    quietHours(w, 26, busy, busyDeployer)
    const deployer = w.address('de9a')
    const token = w.create(deployer, 'SLIDE')
    const holders = [w.address('401d'), w.address('401d'), w.address('401d')]
    w.block(60)
    for (const h of holders) w.transfer(token, deployer, h, 10_000n)
    w.block(60)
    const pair = w.launch(token, deployer, weth(5), 500_000n)
    w.block(60)
    w.buy(pair, holders[0]!, weth(0.1), 1000n)
    w.transfer(token, holders[0]!, holders[1]!, 500n)
    w.block(60)
    await ingest(w)

    const first = await keptAndFresh(token)
    expect(first.kept).toEqual(first.fresh)
    expect(first.kept.data.diff.summary.added).toBeGreaterThan(0)

    // Ten quiet hours: the kept answer is spliced with the new window, never recomputed.
    quietHours(w, 10, busy, busyDeployer)
    const readsBefore = windowReads
    await ingest(w)
    // The new served block's window is read once its batch is applied, before anyone asks.
    await until('the served block\'s window read ahead', () => (windowReads > readsBefore ? true : undefined), 10_000)
    const readAhead = windowReads
    const before = cacheLookupCounts('structure_kept')
    const sliding = await keptAndFresh(token)
    expect(windowReads).toBe(readAhead)
    expect(sliding.kept).toEqual(sliding.fresh)
    expect(sliding.kept.data.window.to_block).toBeGreaterThan(first.kept.data.window.to_block)
    expect(cacheLookupCounts('structure_kept').hit - before.hit).toBe(1)
    expect(cacheLookupCounts('structure_kept').miss).toBe(before.miss)

    // Fifteen more: the token's transfers leave the window; its diff is not what it was.
    quietHours(w, 15, busy, busyDeployer)
    await ingest(w)
    const left = await keptAndFresh(token)
    expect(left.kept).toEqual(left.fresh)
    expect(left.kept.data.diff.summary).not.toEqual(sliding.kept.data.diff.summary)

    // The token moves: its answer is computed again, but its transfers before its first swap
    // (the same at every later block) are not read again.
    w.block(60)
    w.transfer(token, holders[1]!, w.address('401e'), 250n)
    await ingest(w)
    const preSwap = cacheLookupCounts('structure_pre_swap')
    const moved = await keptAndFresh(token)
    expect(moved.kept).toEqual(moved.fresh)
    expect(moved.kept.data.holders.count).toBe(left.kept.data.holders.count + 1)
    expect(cacheLookupCounts('structure_pre_swap').hit).toBeGreaterThan(preSwap.hit)
    expect(cacheLookupCounts('structure_pre_swap').miss).toBe(preSwap.miss)

    // A reorg: the chain forks two blocks back, and on the new branch the token moves otherwise.
    const forkParent = w.blocks[w.blocks.length - 3]!
    const f = new ConstructedWorld(forkParent.number, forkParent.timestamp, 'd5')
    f.block(30)
    f.transfer(token, holders[2]!, f.address('401f'), 1234n)
    f.block(30)
    f.block(30)
    f.block(30)
    await ingest(f)
    const reorged = await keptAndFresh(token)
    expect(reorged.kept).toEqual(reorged.fresh)
    const listed = reorged.kept.data.holders.top.map((h) => h.address)
    expect(listed.some((a) => a.startsWith('0x401f'))).toBe(true)
    expect(listed.some((a) => a.startsWith('0x401e'))).toBe(false)
  })
})
