import { afterEach, describe, expect, it } from 'vitest'
import { createApiServer, type ApiServer } from '../../bin/serve-api.ts'
import { followed4663 } from '../../bin/follow.ts'
import { createRuntime, type Runtime } from '../../bin/runtime.ts'
import { queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { loadConfig } from '../../core/config.ts'
import { createChainProcessor, type ChainProcessor } from '../../pipelines/process/chain-processor.ts'
import { createTokenServing } from '../../products/token/token-serving.ts'
import { ConstructedWorld, ingestWorld, weth, type Pair } from '../setup/constructed-world.ts'
import { TEST_ADMIN_TOKEN } from '../setup/embedded.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * A reorg's rollback that meets an engine fault after it deleted the orphaned rows is run again
 * by the retried batch, on rows that are gone; the batch then forms from the new chain, which may
 * never touch the tokens the orphaned blocks did. What those blocks touched is owed from before
 * the first delete, so their served state still becomes the new chain's.
 */
const STATEMENTS = new Set<PropertyKey>(['query', 'command', 'insert', 'exec'])

/**
 * The real client, refusing (a refused connection: retried) the first statement after the
 * rollback's last delete whose text (a query, or an insert's table) matches `failing`; with
 * `forever`, every one after it too (the engine never comes back for this process).
 */
function failingAfterRollback(ch: ClickHouseClient, failing: RegExp, forever = false): { client: ClickHouseClient; failed: () => boolean } {
  let armed = false
  let failed = false
  const client = new Proxy(ch, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (typeof value !== 'function') return value
      if (!STATEMENTS.has(prop)) return value.bind(target)
      return async (params: { query?: string; table?: string }) => {
        if (armed && (forever || !failed) && failing.test(params.query ?? params.table ?? '')) {
          failed = true
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' })
        }
        if (prop === 'command' && /DELETE FROM chain_blocks/.test(params.query ?? '')) armed = true
        return (value as (p: unknown) => Promise<unknown>).call(target, params)
      }
    },
  })
  return { client, failed: () => failed }
}

/** A token X launched, then traded 4 times only on blocks a fork is about to orphan. */
function orphanedTrades(): { w: ConstructedWorld; X: Pair; forkAt: number } {
  const w = new ConstructedWorld(0, 1_760_100_000, 'e0')
  const Z = w.address('de9b')
  w.block(24)
  const x = w.create(Z, 'OWED')
  w.block(12)
  const X: Pair = w.launch(x, Z, weth(5), 500_000n)
  w.block(12)
  const forkAt = w.head
  for (let k = 0; k < 4; k++) {
    w.buy(X, w.address(`7ad${k}`), weth(0.05), 5000n)
    w.block(12)
  }
  return { w, X, forkAt }
}

/** The new chain: forks after the launch, longer than the old, and never trades X itself. */
function forkWithout(w: ConstructedWorld, forkAt: number): ConstructedWorld {
  const parent = w.blocks.find((b) => b.number === forkAt)!
  const f = new ConstructedWorld(forkAt, parent.timestamp, 'e1')
  for (let k = 0; k < 8; k++) f.block(12)
  return f
}

/**
 * A world with a launch on the common chain and a token T created there but launched only after
 * `forkAt`, on the chain a reorg will orphan.
 */
function launchedAfterFork(salt: string, t0: number): { w: ConstructedWorld; Z: string; T: string; forkAt: number } {
  const w = new ConstructedWorld(0, t0, salt)
  const Z = w.address('de9b')
  w.block(24)
  w.launch(w.create(Z, 'KEPT'), Z, weth(5), 500_000n)
  const T = w.create(Z, 'TWICE')
  w.block(12)
  const forkAt = w.head
  w.block(12)
  w.launch(T, Z, weth(5), 500_000n)
  w.block(12).block(12)
  return { w, Z, T, forkAt }
}

/** X's swaps as token_state serves them and as the raw table stores them. */
async function swapsOf(ch: ClickHouseClient, token: string): Promise<{ served: number; raw: number }> {
  const [s] = await queryRows<{ swaps: string }>(ch, 'SELECT swaps FROM token_state FINAL WHERE chain_id = 4663 AND token = {t:String}', { t: token })
  const [r] = await queryRows<{ n: string }>(ch, 'SELECT count() AS n FROM swaps WHERE chain_id = 4663 AND token = {t:String}', { t: token })
  return { served: Number(s?.swaps ?? -1), raw: Number(r?.n ?? -1) }
}

/** The token's served state is the new chain's, as its raw rows say, in the table and in the answer. */
async function expectServedAsStored(ch: ClickHouseClient, api: ApiServer, token: string): Promise<void> {
  const after = await swapsOf(ch, token)
  expect(after.raw).toBeLessThan(4)
  expect(after.served).toBe(after.raw)
  const answer = await api.app.inject({ method: 'GET', url: `/token/${token}`, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })
  expect(answer.statusCode).toBe(200)
  expect(answer.json().data.swaps).toBe(after.raw)
}

// Each case has its own data dir, closed before the next (chDB opens one per process).
const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** A runtime on a data dir of its own and an API over it; `processor` starts a chain processor on it. */
async function startService() {
  const dir = tempDir()
  cleanups.push(() => dir.cleanup())
  const config = loadConfig({ DATA_DIR: dir.path, SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'silent' })
  const rt: Runtime = await createRuntime(config, 'test')
  cleanups.push(() => rt.close())
  const api: ApiServer = await createApiServer(rt, { pollMs: 0 })
  cleanups.push(() => api.close())
  // While paused, the API learns of no batch; on resume, of the last one at once (one sync reads them all).
  let paused: Array<[number, number]> | null = null
  const advance = (b: number, seq: number) => (paused ? paused.push([b, seq]) : api.watermarks.advance(4663, b, seq))
  const pause = () => { paused = [] }
  const resume = () => {
    const last = paused?.at(-1)
    paused = null
    if (last) api.watermarks.advance(4663, ...last)
  }
  const processor = async (ch: ClickHouseClient): Promise<ChainProcessor> => {
    const p = createChainProcessor({
      ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, chainId: 4663, follow: followed4663(config), maxBatchBlocks: 3,
      onAdvance: advance,
    })
    await p.start()
    cleanups.push(() => p.stop())
    return p
  }
  return { rt, api, processor, pause, resume }
}

describe('a reorg whose rollback meets an engine fault after its deletes', () => {
  it.each([
    ['inside the rollback (its totals recounted after the deletes: the rollback runs again on rows that are gone)', /./],
    ['in the serving refresh after it (the retried batch forms from the new chain)', /token_state|serving_changes/],
  ])('%s: what the orphaned blocks touched is still refreshed, no state of the orphaned chain stays served', { timeout: 180_000 }, async (_where, failing) => {
    const { rt, api, processor: startProcessor } = await startService()
    const fault = failingAfterRollback(rt.ch, failing)
    const processor = await startProcessor(fault.client)
    const ingest = (w: ConstructedWorld) => ingestWorld(w, { bus: rt.bus, ch: rt.ch, watermark: () => processor.watermark() })
    const { w, X, forkAt } = orphanedTrades()
    await ingest(w)
    expect(await swapsOf(rt.ch, X.token)).toEqual({ served: 4, raw: 4 })
    await ingest(forkWithout(w, forkAt))
    expect(fault.failed()).toBe(true)
    await expectServedAsStored(rt.ch, api, X.token)
  })

  it('and the process dies before the refresh: the next one reads what is owed (reorg_refresh_owed) and refreshes it on start', { timeout: 180_000 }, async () => {
    const { rt, api, processor: startProcessor } = await startService()
    // The engine never answers this process's refresh again: it is stopped with the batch uncommitted.
    const fault = failingAfterRollback(rt.ch, /token_state|serving_changes/, true)
    const dying = await startProcessor(fault.client)
    const { w, X, forkAt } = orphanedTrades()
    await ingestWorld(w, { bus: rt.bus, ch: rt.ch, watermark: () => dying.watermark() })
    const fork = forkWithout(w, forkAt)
    await fork.publish(rt.bus)
    const deadline = Date.now() + 120_000
    while (!fault.failed() || dying.watermark() !== forkAt) {
      if (Date.now() > deadline) throw new Error('the rollback did not complete')
      await new Promise((r) => setTimeout(r, 20))
    }
    const [owed] = await queryRows<{ n: string }>(rt.ch, 'SELECT count() AS n FROM reorg_refresh_owed WHERE chain_id = 4663 AND has(touched, {t:String})', { t: X.token })
    expect(Number(owed!.n)).toBeGreaterThan(0)
    await dying.stop()
    const dead = await swapsOf(rt.ch, X.token)
    expect(dead.served).toBe(4)
    expect(dead.raw).toBeLessThan(4)

    const next = await startProcessor(rt.ch)
    await ingestWorld(fork, { bus: rt.bus, ch: rt.ch, watermark: () => next.watermark() })
    await expectServedAsStored(rt.ch, api, X.token)
    const [left] = await queryRows<{ n: string }>(rt.ch, 'SELECT count() AS n FROM reorg_refresh_owed WHERE chain_id = 4663')
    expect(Number(left!.n)).toBe(0)
  })
})

describe('the feed window after a reorg', () => {
  it('read in one sync with the new chain\'s batches (its head above the old one): the orphaned launches leave the window', { timeout: 180_000 }, async () => {
    const { rt, api, processor: startProcessor, pause, resume } = await startService()
    const processor = await startProcessor(rt.ch)
    const ingest = (w: ConstructedWorld) => ingestWorld(w, { bus: rt.bus, ch: rt.ch, watermark: () => processor.watermark() })
    const feed = async () => {
      const res = await api.app.inject({ method: 'GET', url: '/feed/new?limit=200', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })
      expect(res.statusCode).toBe(200)
      return (res.json().data.launches as Array<{ token: string; visible_at: string }>).map((l) => `${l.token}@${l.visible_at}`)
    }
    const stored = async () =>
      (await queryRows<{ token: string; at: string }>(
        rt.ch,
        `SELECT token, formatDateTime(visible_at, '%Y-%m-%dT%H:%i:%S.%fZ') AS at FROM launch_feed FINAL WHERE chain_id = 4663 ORDER BY visible_at, token`,
      )).map((r) => `${r.token}@${r.at}`)
    // T is launched on both chains: on the orphaned one first.
    const { w, Z, T, forkAt } = launchedAfterFork('e0', 1_760_100_000)
    await ingest(w)
    const before = await stored()
    expect(before).toHaveLength(2)
    expect(await feed()).toEqual(before)

    // The API learns of the rollback and of the new chain's batches after it in one sync: the last
    // block served is above the one served before, only the rollback's marker tells of the reorg.
    pause()
    const parent = w.blocks.find((b) => b.number === forkAt)!
    const f = new ConstructedWorld(forkAt, parent.timestamp, 'e1')
    for (let k = 0; k < 3; k++) f.block(12)
    f.launch(T, Z, weth(5), 500_000n)
    for (let k = 0; k < 4; k++) f.block(12)
    await ingest(f)
    resume()
    expect(f.head).toBeGreaterThan(w.head)
    const after = await stored()
    expect(after).toHaveLength(2)
    expect(after).not.toEqual(before)
    // T once, at its launch on the new chain.
    expect(await feed()).toEqual(after)
  })

  it('read by a sync that skips the changes (over its limit): the batch markers tell the rollback, and only then is the window read again; what follows it only after launches', { timeout: 180_000 }, async () => {
    const { rt, api, processor: startProcessor } = await startService()
    const processor = await startProcessor(rt.ch)
    const ingest = (w: ConstructedWorld) => ingestWorld(w, { bus: rt.bus, ch: rt.ch, watermark: () => processor.watermark() })
    // The real engine, its reads of the whole window and of what follows it counted.
    const counting = () => {
      const n = { reloads: 0, appends: 0 }
      const client = new Proxy(rt.ch, {
        get(target, prop, receiver) {
          if (prop !== 'query') return Reflect.get(target, prop, receiver)
          return (args: { query: string }) => {
            if (args.query.includes('FROM launch_feed') && args.query.includes('ORDER BY us DESC')) n.reloads++
            if (args.query.includes('FROM launch_feed') && args.query.includes('visible_at > fromUnixTimestamp64Micro')) n.appends++
            return target.query(args as Parameters<ClickHouseClient['query']>[0])
          }
        },
      }) as ClickHouseClient
      return { n, client }
    }
    // Every sync of this serving skips (a batch names more than one change); the roomy one reads them.
    const t = counting()
    const r = counting()
    const tight = createTokenServing({ ch: t.client, watermarks: api.watermarks, logger: rt.logger, maxEntries: 1_000, maxChangesPerSync: 1 })
    const roomy = createTokenServing({ ch: r.client, watermarks: api.watermarks, logger: rt.logger, maxEntries: 1_000 })
    const listed = async (serving: typeof tight) => (await serving.feedBefore(Date.now() * 1000, 200)).tokens.map((x) => `${x.token}@${x.launch!.visibleUs}`).sort()
    const launches = async () => {
      const [a, b] = [await listed(tight), await listed(roomy)]
      expect(b).toEqual(a)
      return a
    }
    const counts = () => ({ reloads: t.n.reloads, appends: t.n.appends, roomyAppends: r.n.appends })
    const stored = async () =>
      (await queryRows<{ token: string; us: string }>(rt.ch, 'SELECT token, toUnixTimestamp64Micro(visible_at) AS us FROM launch_feed FINAL WHERE chain_id = 4663')).map((r) => `${r.token}@${r.us}`).sort()
    const { w, Z, forkAt } = launchedAfterFork('e2', 1_760_200_000)
    await ingest(w)
    expect(await launches()).toEqual(await stored())
    expect(counts()).toMatchObject({ reloads: 1, appends: 0, roomyAppends: 0 })
    // A new launch, no rollback: the skipping sync appends to the window.
    w.block(12)
    w.launch(w.create(Z, 'THIRD'), Z, weth(5), 500_000n)
    w.block(12)
    await ingest(w)
    expect(await launches()).toEqual(await stored())
    expect(counts()).toMatchObject({ reloads: 1, appends: 1, roomyAppends: 1 })
    // Batches without a launch (their markers say so): the window reads nothing.
    w.block(12).block(12)
    await ingest(w)
    expect(await launches()).toEqual(await stored())
    expect(counts()).toMatchObject({ reloads: 1, appends: 1, roomyAppends: 1 })
    // The rollback and the new chain: read again, the orphaned launch gone.
    const parent = w.blocks.find((b) => b.number === forkAt)!
    const f = new ConstructedWorld(forkAt, parent.timestamp, 'e3')
    for (let k = 0; k < 8; k++) f.block(12)
    await ingest(f)
    const after = await stored()
    expect(after).toHaveLength(1)
    expect(await launches()).toEqual(after)
    expect(counts().reloads).toBe(2)
  })
})
