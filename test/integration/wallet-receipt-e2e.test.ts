import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { followed4663 } from '../../bin/follow.ts'
import { createRuntime, type Runtime } from '../../bin/runtime.ts'
import { createApiServer, type ApiServer } from '../../bin/serve-api.ts'
import { loadConfig } from '../../core/config.ts'
import { rosterWalletsTradingToken } from '../../core/records/roster-trading.ts'
import { createChainProcessor, type ChainProcessor } from '../../pipelines/process/chain-processor.ts'
import { createClaimsProcessor } from '../../pipelines/process/claims-processor.ts'
import { createRpcSource, resolveRpcStart, type RpcSource } from '../../pipelines/sources/rpc/rpc-source.ts'
import { expectedFromChain, type ChainExpectations } from '../setup/chain-expectations.ts'
import { deployUniswapV2, runScenario, type ScenarioResult, type UniswapV2Deployment } from '../setup/chain-scenario.ts'
import { TEST_ADMIN_TOKEN } from '../setup/embedded.ts'
import { refFold, type RefLeg } from '../setup/fifo-reference.ts'
import { startHardhatNode, type HardhatNode } from '../../infra/hardhat/node.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * Issue 12 on a hardhat chain (WETH9, Uniswap v2 router, routed swaps) read over
 * CHAIN_4663_RPC_URL: the traders are loaded as the roster through POST /admin/leaderboard-claims,
 * and each receipt must equal a FIFO the test computes from the chain's own swap events.
 */
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
const dir = tempDir()
let node: HardhatNode
let v2: UniswapV2Deployment
let rt: Runtime
let api: ApiServer
let processor: ChainProcessor
let claims: { start(): Promise<void>; stop(): Promise<void> }
let source: RpcSource
let scenario: ScenarioResult
let chain: ChainExpectations

async function caughtUp(): Promise<number> {
  const head = Number(await node.client.getBlockNumber())
  const deadline = Date.now() + 60_000
  while (processor.watermark() < head) {
    if (Date.now() > deadline) throw new Error(`ingest stuck at ${processor.watermark()}, head ${head}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return head
}

async function receipt(wallet: string) {
  const res = await api.app.inject({ method: 'GET', url: `/wallet-receipt/${wallet}`, headers: admin })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

beforeAll(async () => {
  node = await startHardhatNode({ chainId: 4663 })
  v2 = await deployUniswapV2(node)
  const config = loadConfig({
    DATA_DIR: dir.path, LOG_LEVEL: 'warn', SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    CHAIN_4663_RPC_URL: node.rpcUrl, CHAIN_4663_CONFIRMATIONS: '0', CHAIN_4663_WETH: v2.weth, CHAIN_4663_V2_FACTORIES: v2.factory,
    CHAIN_POLL_MS: '100', PIPELINE_BATCH_BLOCKS: '5',
  })
  rt = await createRuntime(config, 'receipt-e2e')
  api = await createApiServer(rt, { pollMs: 0 })
  processor = createChainProcessor({
    ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, chainId: 4663, follow: followed4663(config),
    maxBatchBlocks: config.PIPELINE_BATCH_BLOCKS, onAdvance: (b, seq) => api.watermarks.advance(4663, b, seq),
  })
  await processor.start()
  claims = createClaimsProcessor({ ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics })
  await claims.start()
  source = createRpcSource({ bus: rt.bus, logger: rt.logger, chainId: 4663, rpcUrl: node.rpcUrl, confirmations: 0, start: await resolveRpcStart(rt.ch, 4663, 0), pollMs: 100 })
  void source.run()
  scenario = await runScenario(node, { v2 })
  await caughtUp()
  chain = await expectedFromChain(node.client, { fromBlock: 0n, toBlock: scenario.toBlock, weth: v2.weth, factory: v2.factory })
}, 180_000)

afterAll(async () => {
  source?.stop()
  await claims?.stop()
  await processor?.stop()
  await api?.close()
  await rt?.close()
  await node?.stop()
  dir.cleanup()
})

/** Per trader and token, the FIFO of the chain's swap events (the test's own, from the definitions). */
function fromChain() {
  const byTrader = new Map<string, Map<string, RefLeg[]>>()
  const flows = new Map<string, { spent: bigint; received: bigint }>()
  for (const s of chain.swaps) {
    const w = s.trader.toLowerCase()
    const t = s.token.toLowerCase()
    const leg: RefLeg = s.tokenOut > s.tokenIn ? { side: 1, qty: s.tokenOut - s.tokenIn, cost: s.wethIn - s.wethOut, t: 0 } : { side: -1, qty: s.tokenIn - s.tokenOut, cost: s.wethOut - s.wethIn, t: 0 }
    if (!byTrader.has(w)) byTrader.set(w, new Map())
    const m = byTrader.get(w)!
    if (!m.has(t)) m.set(t, [])
    m.get(t)!.push(leg)
    const f = flows.get(w) ?? { spent: 0n, received: 0n }
    if (leg.side === 1) f.spent += leg.cost
    else f.received += leg.cost
    flows.set(w, f)
  }
  const out = new Map<string, { realized: bigint; sells: number; wins: number; openCost: bigint; spent: bigint; received: bigint }>()
  for (const [w, tokens] of byTrader) {
    let realized = 0n
    let sells = 0
    let wins = 0
    let openCost = 0n
    for (const legs of tokens.values()) {
      const { state } = refFold(legs)
      realized += state.realized
      sells += state.sells
      wins += state.winningSells
      openCost += state.lots.reduce((a, l) => a + l.cost, 0n)
    }
    out.set(w, { realized, sells, wins, openCost, ...flows.get(w)! })
  }
  return out
}

describe('GET /wallet-receipt on the hardhat chain, roster loaded through POST /admin/leaderboard-claims', () => {
  it('answers found:false (200) before the wallet is on a leaderboard', async () => {
    const r = await receipt(scenario.traders[0]!)
    expect(r.data).toMatchObject({ wallet: scenario.traders[0]!.toLowerCase(), found: false })
  })

  it('rejects a leaderboard with a wallet twice, or more than 100 claims, naming the body', async () => {
    const c = { source: 'board', wallet: scenario.traders[0]!, rank: 1, claimed_pnl_usd_30d: 10, claimed_at: '2030-01-01T00:00:00Z' }
    const dup = await api.app.inject({ method: 'POST', url: '/admin/leaderboard-claims', headers: admin, payload: { claims: [c, { ...c, rank: 2 }] } })
    expect(dup.statusCode).toBe(400)
    expect(dup.json().error.code).toBe('invalid_parameter')
    const many = Array.from({ length: 101 }, (_, i) => ({ ...c, wallet: '0x' + (i + 1).toString(16).padStart(40, '0'), rank: (i % 100) + 1 }))
    expect((await api.app.inject({ method: 'POST', url: '/admin/leaderboard-claims', headers: admin, payload: { claims: many } })).statusCode).toBe(400)
    expect((await api.app.inject({ method: 'POST', url: '/admin/leaderboard-claims', payload: { claims: [c] } })).statusCode).toBe(401)
  })

  it("each trader's realized, win rate, sells and open cost equal the FIFO of the chain's swap events", async () => {
    const want = fromChain()
    const traders = [...want.keys()]
    expect(traders.length).toBeGreaterThan(10)
    const head = await node.client.getBlock()
    const claimedAt = new Date(Number(head.timestamp) * 1000 + 60_000).toISOString()
    const res = await api.app.inject({
      method: 'POST', url: '/admin/leaderboard-claims', headers: admin,
      payload: { claims: traders.map((w, i) => ({ source: 'e2e-board', wallet: w, rank: i + 1, claimed_pnl_usd_30d: 1000 * (i + 1), claimed_at: claimedAt })) },
    })
    expect(res.statusCode, res.body).toBe(200)
    // The claims travel the bus to ClickHouse; the roster follows within a second or so.
    const deadline = Date.now() + 20_000
    while (!(await receipt(traders[0]!)).data.found) {
      if (Date.now() > deadline) throw new Error('roster never loaded')
      await new Promise((r) => setTimeout(r, 200))
    }
    let routed = 0
    let withSells = 0
    for (const w of traders) {
      const e = want.get(w)!
      const { data, measured_through_block } = await receipt(w)
      expect(measured_through_block).toBeGreaterThanOrEqual(Number(scenario.toBlock))
      expect(data.found, w).toBe(true)
      expect(data.realized_net_wei, w).toBe(e.realized.toString())
      expect(data.realized_net_weth).toBeCloseTo(Number(e.realized) / 1e18, 9)
      expect(data.sells, w).toBe(e.sells)
      expect(data.winning_sells, w).toBe(e.wins)
      expect(data.win_rate, w).toBe(e.sells > 0 ? e.wins / e.sells : null)
      expect(data.open_marks.open_cost_wei, w).toBe(e.openCost.toString())
      // realized − open cost = WETH received − WETH spent, for every trader.
      expect(BigInt(data.realized_net_wei) - BigInt(data.open_marks.open_cost_wei), w).toBe(e.received - e.spent)
      expect(data.open_marks.zero.unrealized_wei).toBe((-e.openCost).toString())
      expect(data.leaderboard_claim).toMatchObject({ source: 'e2e-board', claimed_pnl_usd_30d: 1000 * (traders.indexOf(w) + 1) })
      // Every sell of the scenario is within 30 days of the claim.
      expect(data.leaderboard_claim.measured_realized_30d_wei).toBe(e.realized.toString())
      expect(data.hold_style.label === null || ['scalper', 'swing', 'holder'].includes(data.hold_style.label)).toBe(true)
      expect(data.per_token.length).toBeGreaterThan(0)
      if (scenario.trades.some((t) => t.kind === 'route' && t.trader.toLowerCase() === w)) routed++
      if (e.sells > 0) withSells++
    }
    expect(routed).toBeGreaterThan(0)
    expect(withSells).toBeGreaterThan(5)
    // A wallet outside the roster: found:false, 200.
    const outside = await receipt('0x' + 'ee'.repeat(20))
    expect(outside.data.found).toBe(false)
    expect(outside.data.realized_net_wei).toBeNull()
  })

  it('counts the roster wallets that traded a token, without naming them', async () => {
    const popular = scenario.tokens.find((t) => t.popular)!.address.toLowerCase()
    const traded = new Set(chain.swaps.filter((s) => s.token.toLowerCase() === popular).map((s) => s.trader.toLowerCase()))
    const n = await rosterWalletsTradingToken(rt.ch, 4663, popular)
    expect(n.traded).toBe(traded.size)
    expect(n.roster).toBe(fromChain().size)
    expect(await api.deps.receipts.rosterTraders(popular)).toEqual(n)
  })
})
