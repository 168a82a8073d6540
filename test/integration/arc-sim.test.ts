import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { followed5042 } from '../../bin/follow.ts'
import { createRuntime, type Runtime } from '../../bin/runtime.ts'
import { ARC_CHAIN } from '../../core/chains.ts'
import { createApiServer, type ApiServer } from '../../bin/serve-api.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { loadConfig } from '../../core/config.ts'
import { createChainProcessor, type ChainProcessor } from '../../pipelines/process/chain-processor.ts'
import { DEFAULT_START_TIME } from '../../pipelines/sim/chain-sim.ts'
import { simLaunchpads } from '../../pipelines/sim/launchpads.ts'
import { createSimSource } from '../../pipelines/sources/sim-source.ts'
import { TEST_ADMIN_TOKEN } from '../setup/embedded.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * Chain 5042 simulated (no CHAIN_5042_RPC_URL): its own world on `chain.5042.logs`, three launches
 * in four through the simulated pads, read by the same chain processor; the /arc answers agree
 * with the rows.
 */

const BLOCKS = 1500
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
const dir = tempDir()
let rt: Runtime
let api: ApiServer
let processor: ChainProcessor

beforeAll(async () => {
  const config = loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'warn', SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN, PIPELINE_BATCH_BLOCKS: '200' })
  expect(config.simulator5042On).toBe(true)
  rt = await createRuntime(config, 'arc-sim')
  api = await createApiServer(rt, { pollMs: 0 })
  processor = createChainProcessor({
    ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, chainId: 5042, follow: followed5042(config),
    maxBatchBlocks: config.PIPELINE_BATCH_BLOCKS, onAdvance: (b, seq) => api.watermarks.advance(5042, b, seq),
  })
  await processor.start()
  const sim = createSimSource({
    bus: rt.bus, logger: rt.logger, chainId: 5042, seed: config.SIMULATOR_SEED + 5042, blockSeconds: 2,
    start: { fromBlock: 1, genesis: DEFAULT_START_TIME }, untilBlock: BLOCKS, social: false, prices: false, launchpads: simLaunchpads(5042),
  })
  await sim.run()
  const deadline = Date.now() + 120_000
  while (processor.watermark() < BLOCKS) {
    if (Date.now() > deadline) throw new Error(`stuck at ${processor.watermark()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}, 180_000)

afterAll(async () => {
  await processor?.stop()
  await api?.close()
  await rt?.close()
  dir.cleanup()
})

async function get(url: string) {
  const res = await api.app.inject({ method: 'GET', url, headers: admin })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

describe('chain 5042 simulated', () => {
  it('launches go through the simulated pads and directly; /arc/pads and the feed agree with the rows', async () => {
    const pads = await get('/arc/pads')
    expect(pads.measured_through_block).toBe(BLOCKS)
    const rows = await queryRows<{ via: string; n: string; d: string }>(
      rt.ch, "SELECT via, count() AS n, uniqExact(deployer) AS d FROM arc_launches FINAL WHERE chain_id = 5042 GROUP BY via ORDER BY via",
    )
    const byVia = new Map(rows.map((r) => [r.via, { n: Number(r.n), d: Number(r.d) }]))
    const simPads = simLaunchpads(5042)
    for (const p of simPads) {
      expect(byVia.get(p)?.n ?? 0, p).toBeGreaterThan(0)
      const served = pads.data.pads.find((x: { address: string }) => x.address === p)
      expect(served).toMatchObject({ kind: 'pad', launches: byVia.get(p)!.n, deployers: byVia.get(p)!.d })
    }
    expect(byVia.get('')?.n ?? 0).toBeGreaterThan(0)
    const total = rows.reduce((s, r) => s + Number(r.n), 0)
    expect(pads.data.totals).toMatchObject({ kind: 'all', launches: total })
    expect(pads.data.totals.direct).toMatchObject({ kind: 'direct', launches: byVia.get('')!.n })
    // No launch is counted twice; pools (liquidity shares) are not launches.
    const [dup] = await queryRows<{ n: string; u: string; pools: string }>(
      rt.ch,
      `SELECT count() AS n, uniqExact(token) AS u, countIf(token IN (SELECT pool FROM pools WHERE chain_id = 5042)) AS pools FROM arc_launches WHERE chain_id = 5042`,
    )
    expect(Number(dup!.n)).toBe(Number(dup!.u))
    expect(Number(dup!.pools)).toBe(0)
    const feed = await get(`/arc/feed/new?limit=200&via=${simPads[0]}`)
    expect(feed.data.matched).toBe(byVia.get(simPads[0]!)!.n)
    expect(feed.data.tokens.every((t: { launched: { via: string; via_kind: string } }) => t.launched.via === simPads[0] && t.launched.via_kind === 'pad')).toBe(true)
  })

  it('keeps no token or deployer records of the chain (only /arc reads it), and still publishes each batch', async () => {
    /** The chain's rows in each table, by table. */
    const rowsIn = async (tables: string[]) =>
      (await queryRows<Record<string, string>>(rt.ch, `SELECT ${tables.map((t) => `(SELECT count() FROM ${t} WHERE chain_id = ${ARC_CHAIN}) AS ${t}`).join(', ')}`))[0]!
    // No token or deployer records or verdicts, and none of the followed chain's transfer paths,
    // holder balances, pool liquidity and token pools (migration 035's views).
    const kept = ['token_state', 'deployer_state', 'launch_verdicts', 'transfers_by_token', 'transfers_by_wallet', 'holder_deltas', 'holder_balances', 'token_supply', 'token_wallet_links', 'pool_liquidity', 'pool_providers', 'pool_first_mint', 'pool_liquidity_minute', 'token_pools']
    expect(await rowsIn(kept)).toEqual(Object.fromEntries(kept.map((t) => [t, '0'])))
    // The tokens and their transfers are there in the raw rows: the refresh and the views left them out, not the batches.
    for (const [table, n] of Object.entries(await rowsIn(['contract_creations', 'erc20_transfers', 'liquidity_events', 'pools']))) expect(Number(n), table).toBeGreaterThan(0)
    const [marks] = await queryRows<{ n: string; through: string; named: string }>(
      rt.ch, "SELECT countIf(kind = 'batch') AS n, max(watermark) AS through, countIf(kind IN ('token', 'deployer')) AS named FROM serving_changes WHERE chain_id = {chain:UInt32}", { chain: ARC_CHAIN },
    )
    expect(Number(marks!.n)).toBeGreaterThan(0)
    expect(Number(marks!.through)).toBe(BLOCKS)
    expect(Number(marks!.named)).toBe(0)
  })

  it('a token report states its pad, deployer and activity as of the same block', async () => {
    const [t] = await queryRows<{ token: string; via: string; deployer: string }>(
      rt.ch, "SELECT token, via, deployer FROM arc_launches FINAL WHERE chain_id = 5042 AND via != '' ORDER BY block_number LIMIT 1",
    )
    const r = await get(`/arc/report/${t!.token}`)
    expect(r.data).toMatchObject({ found: true, launched: { via: t!.via, via_kind: 'pad', deployer: t!.deployer }, pad_record: { address: t!.via, kind: 'pad' } })
    const [transfers] = await queryRows<{ n: string }>(rt.ch, 'SELECT count() AS n FROM erc20_transfers FINAL WHERE chain_id = 5042 AND token = {t:String} AND block_number <= {w:UInt64}', { t: t!.token, w: r.measured_through_block })
    expect(r.data.activity.transfers).toBe(Number(transfers!.n))
  })
})
