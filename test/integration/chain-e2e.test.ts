import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { followed4663 } from '../../bin/follow.ts'
import { createRuntime, type Runtime } from '../../bin/runtime.ts'
import { createApiServer, type ApiServer } from '../../bin/serve-api.ts'
import { queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { refreshTokenReal } from '../../products/token/token-real-refresh.ts'
import { loadConfig } from '../../core/config.ts'
import { createChainProcessor, type ChainProcessor } from '../../pipelines/process/chain-processor.ts'
import { createClaimsProcessor } from '../../pipelines/process/claims-processor.ts'
import { rosterWalletsTradingToken } from '../../products/wallet/roster-trading.ts'
import { receiptsFromChain as fromChain } from '../setup/receipt-expectations.ts'
import { createRpcSource, resolveRpcStart, type RpcSource } from '../../pipelines/sources/rpc/rpc-source.ts'
import { expectedFromChain, type ChainExpectations } from '../setup/chain-expectations.ts'
import { deployUniswapV2, runScenario, type ScenarioResult, type UniswapV2Deployment } from '../setup/chain-scenario.ts'
import { TEST_ADMIN_TOKEN } from '../setup/embedded.ts'
import { startHardhatNode, type HardhatNode } from '../../infra/hardhat/node.ts'
import { tempDir } from '../setup/temp.ts'
import { getOk, ingestedHead } from '../setup/hardhat-ingest.ts'
import { expectStructureMatchesChain } from '../setup/structure-expectations.ts'

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

const caughtUp = () => ingestedHead(node, processor)
const get = (url: string) => getOk(api.app, url, admin)

beforeAll(async () => {
  node = await startHardhatNode({ chainId: 4663 })
  v2 = await deployUniswapV2(node)
  const config = loadConfig({
    DATA_DIR: dir.path,
    LOG_LEVEL: 'warn',
    SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    CHAIN_4663_RPC_URL: node.rpcUrl,
    CHAIN_4663_CONFIRMATIONS: '0',
    CHAIN_4663_WETH: v2.weth,
    CHAIN_4663_V2_FACTORIES: v2.factory,
    CHAIN_POLL_MS: '100',
    PIPELINE_BATCH_BLOCKS: '7',
  })
  rt = await createRuntime(config, 'e2e')
  api = await createApiServer(rt, { pollMs: 0 })
  processor = createChainProcessor({
    ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, chainId: 4663, follow: followed4663(config),
    maxBatchBlocks: config.PIPELINE_BATCH_BLOCKS, onAdvance: (b, seq) => api.watermarks.advance(4663, b, seq),
  })
  await processor.start()
  claims = createClaimsProcessor({ ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics })
  await claims.start()
  source = createRpcSource({
    bus: rt.bus, logger: rt.logger, chainId: 4663, rpcUrl: node.rpcUrl, confirmations: 0,
    start: await resolveRpcStart(rt.ch, 4663, 0), pollMs: 100,
  })
  void source.run()
  scenario = await runScenario(node, { v2 })
  await caughtUp()
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

describe('chain 4663 end to end on a hardhat node (Uniswap v2, WETH9, ERC20)', () => {
  it('every token figure equals what the chain receipts say', async () => {
    const expected = await expectedFromChain(node.client, { fromBlock: 0n, toBlock: scenario.toBlock, weth: v2.weth, factory: v2.factory })
    expect(expected.tokens.size).toBe(scenario.tokens.length)
    for (const [token, e] of expected.tokens) {
      const { data, measured_through_block } = await get(`/token/${token}`)
      expect(measured_through_block).toBeGreaterThanOrEqual(Number(scenario.toBlock))
      expect(data.found).toBe(true)
      expect(data.swaps, token).toBe(e.swaps)
      expect(data.weth_volume_wei, token).toBe(e.wethVolume.toString())
      expect(data.unique_traders, token).toBe(e.traders.length)
      expect(data.deployer, token).toBe(e.deployer!.toLowerCase())
      expect(data.created_block, token).toBe(Number(e.creationBlock))
      expect(data.real_block, token).toBe(e.realBlock === null ? null : Number(e.realBlock))
      expect(data.is_real, token).toBe(e.realBlock !== null)
      expect(data.launch.pool).toBe(e.pair.toLowerCase())
      const symbol = scenario.tokens.find((t) => t.address.toLowerCase() === token.toLowerCase())!.symbol
      expect(data.symbol).toBe(symbol)
      expect(data.price.observed_block).toBeGreaterThan(0)
      expect(BigInt(data.price.fdv_weth_wei)).toBeGreaterThan(0n)
    }
    const popular = [...expected.tokens.values()].filter((t) => t.realBlock !== null)
    expect(popular).toHaveLength(1)
  })

  it('the search for a real block runs only for a token not real yet whose totals meet every threshold, and finds the block the chain says', async () => {
    const searched: string[][] = []
    const counting = new Proxy(rt.ch, {
      get(target, prop, receiver) {
        if (prop !== 'command') return Reflect.get(target, prop, receiver)
        return (args: Parameters<ClickHouseClient['command']>[0]) => {
          if (args.query.includes('INSERT INTO token_real')) searched.push((args.query_params as { tokens: string[] }).tokens)
          return target.command(args)
        }
      },
    }) as ClickHouseClient
    const expected = await expectedFromChain(node.client, { fromBlock: 0n, toBlock: scenario.toBlock, weth: v2.weth, factory: v2.factory })
    const [popular, ...others] = [...expected.tokens.entries()].filter(([, t]) => t.realBlock !== null)
    expect(popular).toBeDefined()
    expect(others).toEqual([])
    const token = popular![0].toLowerCase()
    const traded = (await queryRows<{ token: string }>(rt.ch, 'SELECT DISTINCT token FROM token_activity WHERE chain_id = 4663')).map((r) => r.token)
    expect(traded.length).toBeGreaterThan(1)
    // The real one is recorded and the others fall short of a threshold: nothing to search.
    await refreshTokenReal(counting, 4663, traded)
    expect(searched).toEqual([])
    // Its record gone (as a rollback leaves it): searched alone, found at the block the chain says.
    await rt.ch.command({ query: 'DELETE FROM token_real WHERE chain_id = 4663 AND token = {t:String}', query_params: { t: token } })
    await refreshTokenReal(counting, 4663, traded)
    expect(searched).toEqual([[token]])
    const [again] = await queryRows<{ b: string }>(rt.ch, 'SELECT toString(min(real_block)) AS b FROM token_real WHERE chain_id = 4663 AND token = {t:String}', { t: token })
    expect(again?.b).toBe(String(popular![1].realBlock))
  })

  it('a routed trade counts as a sell of A and a buy of B by the transaction sender', async () => {
    const route = scenario.trades.find((t) => t.kind === 'route')!
    const rows = await queryRows<{ token: string; trader: string; weth_in: string; weth_out: string }>(
      rt.ch,
      'SELECT token, trader, weth_in, weth_out FROM swaps WHERE tx_hash = {tx:String} ORDER BY log_index',
      { tx: route.hash.toLowerCase() },
    )
    expect(rows).toHaveLength(2)
    expect(rows.map((r) => r.trader)).toEqual([route.trader.toLowerCase(), route.trader.toLowerCase()])
    expect(rows[0]!.weth_out).toBe(rows[1]!.weth_in) // sell of A for WETH, buy of B with that WETH
    expect(rows[0]!.weth_out).not.toBe('0')
  })

  it('deployer records count launches per deployer; the leaderboard, search, feed and badge agree', async () => {
    const byDeployer = new Map<string, number>()
    for (const t of scenario.tokens) byDeployer.set(t.deployer.toLowerCase(), (byDeployer.get(t.deployer.toLowerCase()) ?? 0) + 1)
    for (const [deployer, launched] of byDeployer) {
      const res = await get(`/deployer/${deployer}`)
      expect(res.data).toMatchObject({ deployer, found: true, launched, launches_total: launched })
      expect(res.signal).toBe(res.data.band)
    }
    const popular = scenario.tokens.find((t) => t.popular)!
    const popDeployer = (await get(`/deployer/${popular.deployer}`)).data
    expect(popDeployer.real).toBe(1)
    expect(popDeployer.best_token.token).toBe(popular.address.toLowerCase())

    const board = (await get('/leaderboard')).data
    expect(board.total).toBe(byDeployer.size)
    expect(board.deployers[0].rank).toBe(1)
    expect(board.deployers.map((d: { score: number }) => d.score)).toEqual([...board.deployers.map((d: { score: number }) => d.score)].sort((a, b) => b - a))

    const search = (await get('/search?q=POP')).data
    expect(search.results[0]).toMatchObject({ token: popular.address.toLowerCase(), match: 'symbol' })

    const feed = (await get('/feed/new?limit=200')).data
    expect(feed.launches.map((l: { token: string }) => l.token).sort()).toEqual(scenario.tokens.map((t) => t.address.toLowerCase()).sort())

    const badge = await api.app.inject({ method: 'GET', url: `/badge/${popular.address}` })
    expect(badge.headers['content-type']).toContain('image/svg+xml')
    expect(badge.body).toContain(`${popDeployer.band} ${popDeployer.score}`)
  })

  it('/structure: holders, balances and the 24 h diff equal a replay of the Transfer logs and balanceOf at both blocks; pre-swap recipients of the deployer carry insider', async () => {
    const head = await caughtUp()
    const pop = scenario.tokens.find((t) => t.popular)!
    for (const t of scenario.tokens) {
      const r = await expectStructureMatchesChain(node.client, t, BigInt(head), (url) => get(url))
      if (t === pop) {
        // The scenario's allocations: trader #10 (1% of supply, round), the wallet it passed
        // some on to, and another fresh wallet; the late rounds fall inside the window.
        expect(r.insiders.sort()).toEqual([node.accounts[14], ...scenario.allocations.filter((a) => a.token === pop.address).map((a) => a.to)].map((a) => a.toLowerCase()).filter((a, i, all) => all.indexOf(a) === i).sort())
        expect(r.window.full).toBe(true)
        expect(r.classes.added + r.classes.trimmed).toBeGreaterThan(5)
        expect(r.classes.frozen).toBeGreaterThan(0)
        expect(r.newHolders).toBeGreaterThan(0)
        expect(r.labels.get(node.accounts[14].toLowerCase())).toEqual(expect.arrayContaining(['insider', 'round_allocation']))
        expect(r.labels.get(pop.deployer.toLowerCase())).toContain('deployer')
      }
    }
    // as_of_block: the same answer with the window ending earlier.
    await expectStructureMatchesChain(node.client, pop, BigInt(head - 3), (url) => get(url))
  })

  it('a reorg (evm_snapshot / evm_revert, then a different chain) leaves no orphaned rows', async () => {
    const snap = await node.snapshot()
    const before = await caughtUp()
    await runScenario(node, { v2, seed: 1 }) // blocks the service ingests, then loses
    const orphanHead = await caughtUp()
    expect(orphanHead).toBeGreaterThan(before)
    // The feed's window (kept in memory) holds the launches about to be orphaned.
    const feedPage = async () => ((await get('/feed/new?limit=200')).data.launches as Array<{ token: string; visible_at: string }>).map((l) => `${l.token}@${l.visible_at}`)
    const orphanFeed = await feedPage()
    await node.revert(snap)
    const replacement = await runScenario(node, { v2, seed: 2 })
    await node.mine(3) // the new chain outgrows the orphaned one
    const head = await caughtUp()
    expect(head).toBeGreaterThan(orphanHead)
    // The reorg is processed once the first replaced block arrives; wait for it.
    const deadline = Date.now() + 30_000
    while (Number((await queryRows<{ n: string }>(rt.ch, 'SELECT count() AS n FROM chain_reorgs'))[0]!.n) === 0) {
      if (Date.now() > deadline) throw new Error('no reorg was recorded')
      await new Promise((r) => setTimeout(r, 100))
    }
    await caughtUp()

    // Every ingested block is the node's block of that number.
    const blocks = await queryRows<{ number: string; hash: string }>(rt.ch, 'SELECT number, hash FROM chain_blocks FINAL ORDER BY number')
    for (const b of blocks) {
      const onChain = await node.client.getBlock({ blockNumber: BigInt(b.number) })
      expect(b.hash, `block ${b.number}`).toBe(onChain.hash)
    }
    // Every swap row is a swap of the current chain, and the views equal a recount.
    const expected = await expectedFromChain(node.client, { fromBlock: 0n, toBlock: BigInt(head), weth: v2.weth, factory: v2.factory })
    const raw = await queryRows<{ tx_hash: string; log_index: string }>(rt.ch, 'SELECT tx_hash, log_index FROM swaps ORDER BY block_number, log_index')
    expect(raw.map((r) => `${r.tx_hash}:${r.log_index}`)).toEqual(expected.swaps.map((s) => `${s.txHash.toLowerCase()}:${s.logIndex}`))
    const mismatches = await queryRows(
      rt.ch,
      `SELECT a.token FROM (SELECT token, sum(swaps) AS s, sum(weth_volume) AS v, uniqExactMerge(traders) AS t FROM token_activity GROUP BY token) AS a
       FULL OUTER JOIN (SELECT token, count() AS s, sum(weth_in + weth_out) AS v, uniqExact(trader) AS t FROM swaps GROUP BY token) AS r USING (token)
       WHERE a.s != r.s OR a.v != r.v OR a.t != r.t`,
    )
    expect(mismatches).toEqual([])
    const orphanRows = await queryRows<{ n: string }>(
      rt.ch,
      `SELECT (SELECT count() FROM erc20_transfers WHERE block_number NOT IN (SELECT number FROM chain_blocks))
            + (SELECT count() FROM pool_reserves WHERE block_number NOT IN (SELECT number FROM chain_blocks))
            + (SELECT count() FROM liquidity_events WHERE block_number NOT IN (SELECT number FROM chain_blocks))
            + (SELECT count() FROM contract_creations WHERE block_number NOT IN (SELECT number FROM chain_blocks))
            + (SELECT count() FROM transfers_by_token WHERE block_number NOT IN (SELECT number FROM chain_blocks))
            + (SELECT count() FROM launch_feed WHERE block_number NOT IN (SELECT number FROM chain_blocks))
            + (SELECT count() FROM holder_deltas WHERE block_number NOT IN (SELECT number FROM chain_blocks))
            + (SELECT count() FROM token_pools WHERE block_number NOT IN (SELECT number FROM chain_blocks))
            + (SELECT count() FROM block_times WHERE number NOT IN (SELECT number FROM chain_blocks)) AS n`,
    )
    expect(Number(orphanRows[0]!.n)).toBe(0)
    // Holder balances and per-block deltas equal a recount over the surviving transfers.
    const balanceMismatches = await queryRows(
      rt.ch,
      `SELECT token, wallet FROM (SELECT token, wallet, sum(balance) AS b FROM holder_balances GROUP BY token, wallet HAVING b != 0) AS h
       FULL OUTER JOIN (SELECT token, w AS wallet, sum(d) AS b FROM
          (SELECT token, to_address AS w, toInt256(value) AS d FROM erc20_transfers FINAL UNION ALL SELECT token, from_address AS w, -toInt256(value) AS d FROM erc20_transfers FINAL)
          WHERE w != '0x0000000000000000000000000000000000000000' GROUP BY token, w HAVING b != 0) AS r USING (token, wallet)
       WHERE h.b != r.b SETTINGS join_use_nulls = 0`,
    )
    expect(balanceMismatches).toEqual([])
    for (const t of replacement.tokens) await expectStructureMatchesChain(node.client, t, BigInt(head), (url) => get(url))
    // The serving state has no orphan either: its tokens are the current chain's, its deployer
    // counts are a recount.
    const servedOrphans = await queryRows(
      rt.ch,
      `SELECT token FROM (SELECT token, present FROM token_state ORDER BY token, version DESC LIMIT 1 BY token)
       WHERE present AND token NOT IN (SELECT address FROM contract_creations) AND token NOT IN (SELECT token FROM launches)`,
    )
    expect(servedOrphans).toEqual([])
    const deployerMismatches = await queryRows(
      rt.ch,
      `SELECT d.deployer FROM (SELECT deployer, launched FROM deployer_state FINAL WHERE launched > 0) AS d
       FULL OUTER JOIN (SELECT c.deployer AS deployer, count() AS launched FROM launches AS l INNER JOIN contract_creations AS c ON c.address = l.token GROUP BY c.deployer) AS r
       ON r.deployer = d.deployer WHERE d.launched != r.launched SETTINGS join_use_nulls = 0`,
    )
    expect(deployerMismatches).toEqual([])
    for (const [token, e] of expected.tokens) {
      const { data } = await get(`/token/${token}`)
      expect(data.swaps, token).toBe(e.swaps)
      expect(data.weth_volume_wei, token).toBe(e.wethVolume.toString())
    }
    expect(replacement.tokens.length).toBeGreaterThan(0)
    // The feed window dropped the orphaned launches and holds the new chain's (the same tokens may
    // launch again, at a later visible_at): the same page as launch_feed gives (the newest 200, oldest first).
    const current = (await queryRows<{ token: string; at: string }>(
      rt.ch,
      `SELECT token, formatDateTime(visible_at, '%Y-%m-%dT%H:%i:%S.%fZ') AS at
       FROM (SELECT token, visible_at FROM launch_feed GROUP BY token, visible_at ORDER BY visible_at DESC LIMIT 200) ORDER BY visible_at`,
    )).map((r) => `${r.token}@${r.at}`)
    expect(orphanFeed.some((l) => !current.includes(l)), 'the orphaned launches left the feed').toBe(true)
    expect(await feedPage()).toEqual(current)
  })

  it('bad input answers 400 naming the parameter', async () => {
    const bad = async (url: string) => {
      const res = await api.app.inject({ method: 'GET', url, headers: admin })
      expect(res.statusCode, url).toBe(400)
      return res.json().error
    }
    expect(await bad('/deployer/0x1234')).toMatchObject({ code: 'invalid_address', details: { parameter: 'address' } })
    expect(await bad('/feed/new?limit=0')).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'limit' } })
    expect(await bad('/feed/new?limit=201')).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'limit' } })
    expect(await bad('/feed/new?since=yesterday')).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'since' } })
    expect(await bad('/feed/new?min_score=101')).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'min_score' } })
    expect(await bad('/search?q=')).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'q' } })
    expect(await bad('/badge/nope')).toMatchObject({ code: 'invalid_address', details: { parameter: 'token' } })
  })
})

/**
 * Issue 12, after the reorg above: the traders of the current chain are loaded as the roster
 * through POST /admin/leaderboard-claims, and each receipt must equal a FIFO the test computes from
 * the chain's own swap events (so the orphaned legs are gone from every figure).
 */
describe('GET /wallet-receipt on the hardhat chain, roster loaded through POST /admin/leaderboard-claims', () => {
  let chain: ChainExpectations
  beforeAll(async () => {
    const head = await caughtUp()
    chain = await expectedFromChain(node.client, { fromBlock: 0n, toBlock: BigInt(head), weth: v2.weth, factory: v2.factory })
  })

  it('answers found:false (200) before the wallet is on a leaderboard', async () => {
    const r = await get(`/wallet-receipt/${scenario.traders[0]!}`)
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
    const want = fromChain(chain)
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
    while (!(await get(`/wallet-receipt/${traders[0]!}`)).data.found) {
      if (Date.now() > deadline) throw new Error('roster never loaded')
      await new Promise((r) => setTimeout(r, 200))
    }
    let routed = 0
    let withSells = 0
    for (const w of traders) {
      const e = want.get(w)!
      const { data, measured_through_block } = await get(`/wallet-receipt/${w}`)
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
    // The reorg left no leg or matched sell of an orphaned block.
    const orphans = await queryRows<{ n: string }>(
      rt.ch,
      `SELECT (SELECT count() FROM wallet_legs WHERE block_number NOT IN (SELECT number FROM chain_blocks))
            + (SELECT count() FROM fifo_sells WHERE block_number NOT IN (SELECT number FROM chain_blocks)) AS n`,
    )
    expect(Number(orphans[0]!.n)).toBe(0)
    // A wallet outside the roster: found:false, 200.
    const outside = await get(`/wallet-receipt/0x${'ee'.repeat(20)}`)
    expect(outside.data.found).toBe(false)
    expect(outside.data.realized_net_wei).toBeNull()
  })

  it('counts the roster wallets that traded a token, without naming them', async () => {
    const popular = scenario.tokens.find((t) => t.popular)!.address.toLowerCase()
    const traded = new Set(chain.swaps.filter((s) => s.token.toLowerCase() === popular).map((s) => s.trader.toLowerCase()))
    const n = await rosterWalletsTradingToken(rt.ch, 4663, popular)
    expect(n.traded).toBe(traded.size)
    expect(n.roster).toBe(fromChain(chain).size)
    expect(await api.deps.receipts.rosterTraders(popular)).toEqual(n)
  })
})
