import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseAbiItem, parseEther } from 'viem'
import { followed5042 } from '../../bin/follow.ts'
import { createRuntime, type Runtime } from '../../bin/runtime.ts'
import { createApiServer, type ApiServer } from '../../bin/serve-api.ts'
import { loadConfig } from '../../core/config.ts'
import { createChainProcessor, type ChainProcessor } from '../../pipelines/process/chain-processor.ts'
import { createRpcSource, resolveRpcStart, type RpcSource } from '../../pipelines/sources/rpc/rpc-source.ts'
import { startHardhatNode, type HardhatNode } from '../../infra/hardhat/node.ts'
import { addPool, buy, compileLaunchpad, deployArc, launch, launchInOneBlock, transfer, type ArcDeployment, type ArcLaunchFact } from '../setup/arc-scenario.ts'
import { TEST_ADMIN_TOKEN } from '../setup/embedded.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { tempDir } from '../setup/temp.ts'
import { getOk, ingestedHead } from '../setup/hardhat-ingest.ts'

/**
 * Chain 5042 end to end: a Hardhat node reporting chain id 5042 with our launchpads, Uniswap v2
 * and real transactions; the service reads it over CHAIN_5042_RPC_URL (the JSON-RPC source with
 * launch attribution, the chain processor, the API), and every /arc answer is compared with what
 * this test computes from the node's own logs as of the answer's measured_through_block.
 */

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
const dir = tempDir()
let node: HardhatNode
let d: ArcDeployment
let rt: Runtime
let api: ApiServer
let processor: ChainProcessor
let source: RpcSource
const launches: ArcLaunchFact[] = []

const caughtUp = () => ingestedHead(node, processor)
const get = (url: string) => getOk(api.app, url, admin)

// ---- what the chain says, as of block W (from the node's logs, independently of the service) ----

const TransferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')
const PairCreated = parseAbiItem('event PairCreated(address indexed token0, address indexed token1, address pair, uint256 allPairsLength)')
const SwapEvent = parseAbiItem('event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)')
const ZERO = '0x0000000000000000000000000000000000000000'
const lc = (a: string) => a.toLowerCase()
const iso = (t: bigint | number) => new Date(Number(t) * 1000).toISOString()

async function blockTime(n: bigint): Promise<number> {
  return Number((await node.client.getBlock({ blockNumber: n })).timestamp)
}

async function chainAt(W: number) {
  const toBlock = BigInt(W)
  const known = launches.filter((l) => l.block <= toBlock)
  const pairs = await node.client.getLogs({ address: d.v2.factory, event: PairCreated, fromBlock: 0n, toBlock })
  const edgeTime = await blockTime(toBlock)
  const tokenFacts = new Map<string, Awaited<ReturnType<typeof tokenAt>>>()
  async function tokenAt(l: ArcLaunchFact) {
    const t = lc(l.token)
    const transfers = await node.client.getLogs({ address: l.token, event: TransferEvent, fromBlock: 0n, toBlock })
    const myPairs = pairs.filter((p) => lc(p.args.token0!) === t || lc(p.args.token1!) === t)
    const balances = new Map<string, bigint>()
    for (const x of transfers) {
      balances.set(lc(x.args.from!), (balances.get(lc(x.args.from!)) ?? 0n) - x.args.value!)
      balances.set(lc(x.args.to!), (balances.get(lc(x.args.to!)) ?? 0n) + x.args.value!)
    }
    const poolSet = new Set(myPairs.map((p) => lc(p.args.pair!)))
    const holders = [...balances].filter(([a, b]) => b > 0n && a !== ZERO && !poolSet.has(a)).length
    let swaps = 0
    let volume = 0n
    let lastSwap: bigint | null = null
    for (const p of myPairs) {
      const side0 = lc(p.args.token0!) === t
      for (const s of await node.client.getLogs({ address: p.args.pair!, event: SwapEvent, fromBlock: 0n, toBlock })) {
        swaps++
        volume += side0 ? s.args.amount0In! + s.args.amount0Out! : s.args.amount1In! + s.args.amount1Out!
        if (lastSwap === null || s.blockNumber > lastSwap) lastSwap = s.blockNumber
      }
    }
    const first = myPairs[0]
    const stillTrading = lastSwap !== null && (await blockTime(lastSwap)) > edgeTime - 86_400
    return {
      token: t,
      symbol: l.symbol,
      name: l.name,
      launched: { block: Number(l.block), time: iso(await blockTime(l.block)), tx_hash: lc(l.txHash), via: l.via ? lc(l.via) : null, via_kind: l.via ? 'pad' : 'direct', deployer: lc(l.deployer) },
      first_pool: first
        ? {
            pool: lc(first.args.pair!), factory: lc(d.v2.factory), protocol: 'v2',
            paired_with: lc(first.args.token0!) === t ? lc(first.args.token1!) : lc(first.args.token0!),
            block: Number(first.blockNumber), time: iso(await blockTime(first.blockNumber)),
          }
        : null,
      activity: { transfers: transfers.length, swaps, volume: volume.toString(), last_swap_block: lastSwap === null ? null : Number(lastSwap), still_trading: stillTrading },
      holders,
      fact: l,
    }
  }
  for (const l of known) tokenFacts.set(lc(l.token), await tokenAt(l))
  const newestFirst = [...tokenFacts.values()].sort((a, b) => b.fact.block === a.fact.block ? b.fact.txIndex - a.fact.txIndex || (b.token < a.token ? -1 : 1) : Number(b.fact.block - a.fact.block))
  const view = (x: (typeof newestFirst)[number]) => ({ token: x.token, symbol: x.symbol, name: x.name, launched: x.launched, first_pool: x.first_pool, activity: x.activity })
  function venue(via: string | null, kind: string) {
    const of = newestFirst.filter((x) => via === '*' || x.launched.via === via)
    return {
      address: via === '*' || via === null ? null : via, kind,
      launches: of.length,
      tokens_with_pool: of.filter((x) => x.first_pool).length,
      tokens_still_trading: of.filter((x) => x.activity.still_trading).length,
      deployers: new Set(of.map((x) => x.launched.deployer)).size,
    }
  }
  function deployer(address: string) {
    const mine = newestFirst.filter((x) => x.launched.deployer === address)
    if (!mine.length) return null
    let best: (typeof mine)[number] | null = null
    for (const t of mine) if (t.activity.swaps > 0 && (!best || t.activity.swaps > best.activity.swaps)) best = t
    const pads = new Map<string, number>()
    for (const t of mine) if (t.launched.via) pads.set(t.launched.via, (pads.get(t.launched.via) ?? 0) + 1)
    return {
      record: {
        launches: mine.length,
        tokens_with_pool: mine.filter((x) => x.first_pool).length,
        tokens_still_trading: mine.filter((x) => x.activity.still_trading).length,
        first_launch_block: mine[mine.length - 1]!.launched.block,
        last_launch_block: mine[0]!.launched.block,
        best_token: best && { token: best.token, symbol: best.symbol, swaps: best.activity.swaps, volume: best.activity.volume },
      },
      pads_used: [...pads].map(([address, launches]) => ({ address, kind: 'pad', launches })).sort((a, b) => b.launches - a.launches || a.address.localeCompare(b.address)),
      tokens: mine.map(view),
    }
  }
  return { tokens: tokenFacts, newestFirst, view, venue, deployer }
}

const coverage = (W: number) => ({
  chain_id: 5042, from_block: 0, through_block: W,
  launchpads: d.pads.map(lc).sort(), factories: [lc(d.v2.factory)], rule: expect.stringContaining('sent to that address'),
})

beforeAll(async () => {
  // Compile first: solc-js blocks for seconds, long enough for the node to drop an idle keep-alive connection.
  compileLaunchpad()
  node = await startHardhatNode({ chainId: 5042 })
  d = await deployArc(node)
  const config = loadConfig({
    DATA_DIR: dir.path,
    LOG_LEVEL: 'warn',
    SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    CHAIN_5042_RPC_URL: node.rpcUrl,
    CHAIN_5042_CONFIRMATIONS: '0',
    CHAIN_5042_LAUNCHPADS: d.pads.join(','),
    CHAIN_5042_FACTORIES: d.v2.factory,
    CHAIN_POLL_MS: '100',
    PIPELINE_BATCH_BLOCKS: '6',
  })
  rt = await createRuntime(config, 'arc-e2e')
  api = await createApiServer(rt, { pollMs: 0 })
  const follow = followed5042(config)
  processor = createChainProcessor({
    ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, chainId: 5042, follow,
    maxBatchBlocks: config.PIPELINE_BATCH_BLOCKS, onAdvance: (b, seq) => api.watermarks.advance(5042, b, seq),
  })
  await processor.start()
  source = createRpcSource({
    bus: rt.bus, logger: rt.logger, chainId: 5042, rpcUrl: node.rpcUrl, confirmations: 0, pollMs: 100,
    start: await resolveRpcStart(rt.ch, 5042, 0),
    attribution: { addresses: [...follow.attribution!.pads, ...follow.attribution!.factories] },
  })
  void source.run()

  // WETH9 of the Uniswap deployment is an ERC20 created by a top-level transaction: a direct launch too.
  for (let n = 1n; n <= (await node.client.getBlockNumber()); n++) {
    const b = await node.client.getBlock({ blockNumber: n, includeTransactions: true })
    for (const tx of b.transactions) {
      const receipt = await node.client.getTransactionReceipt({ hash: tx.hash })
      if (receipt.contractAddress && lc(receipt.contractAddress) === lc(d.v2.weth)) {
        launches.push({ token: d.v2.weth, symbol: 'WETH', name: 'Wrapped Ether', deployer: tx.from, via: null, txHash: tx.hash, block: n, txIndex: receipt.transactionIndex })
      }
    }
  }
  expect(launches).toHaveLength(1)
  const a = node.accounts
  const [padA, padB] = d.pads
  launches.push(await launch(node, d, { kind: 'pad', pad: padA, from: a[1], symbol: 'AAA' }))
  launches.push(await launch(node, d, { kind: 'pad', pad: padA, from: a[2], symbol: 'BBB' }))
  launches.push(await launch(node, d, { kind: 'pad', pad: padB, from: a[1], symbol: 'CCC' }))
  launches.push(await launch(node, d, { kind: 'direct', from: a[3], symbol: 'aaa' }))
  launches.push(await launch(node, d, { kind: 'relay', pad: padB, from: a[2], symbol: 'RLY' }))
  launches.push(...(await launchInOneBlock(node, d, [
    { kind: 'pad', pad: padA, from: a[4], symbol: 'M1' },
    { kind: 'pad', pad: padB, from: a[4], symbol: 'M2' },
    { kind: 'direct', from: a[5], symbol: 'M3' },
    { kind: 'pad', pad: padA, from: a[5], symbol: 'M4' },
  ])))
  const [, AAA, BBB, , aaa, RLY] = launches
  await addPool(node, d, AAA!.token, a[1])
  await addPool(node, d, aaa!.token, a[3])
  await addPool(node, d, RLY!.token, a[2], '1')
  await buy(node, d, AAA!.token, a[6])
  await buy(node, d, AAA!.token, a[7])
  await buy(node, d, AAA!.token, a[6], '0.3')
  await buy(node, d, aaa!.token, a[8])
  await transfer(node, BBB!.token, a[2], a[9], parseEther('10'))
  await transfer(node, AAA!.token, a[1], a[10], parseEther('5'))
  await transfer(node, BBB!.token, a[9], a[10], parseEther('1'))
  await caughtUp()
}, 240_000)

afterAll(async () => {
  source?.stop()
  await processor?.stop()
  await api?.close()
  await rt?.close()
  await node?.stop()
  dir.cleanup()
})

describe('chain 5042 over JSON-RPC (hardhat, chain id 5042)', () => {
  it('/arc/report/{token} equals what the chain says for every token: launch, via, first pool, activity, holders, records, same symbol', async () => {
    for (const l of launches) {
      const r = await get(`/arc/report/${l.token}`)
      const W = r.measured_through_block as number
      expect(W).toBe(processor.watermark())
      const c = await chainAt(W)
      const t = c.tokens.get(lc(l.token))!
      const dep = c.deployer(t.launched.deployer)!
      const same = c.newestFirst.filter((x) => x.symbol.toLowerCase() === t.symbol.toLowerCase() && x.token !== t.token)
      expect(r).toEqual({
        chain_id: 5042,
        measured_through_block: W,
        data: {
          found: true,
          symbol: t.symbol,
          launched: t.launched,
          first_pool: t.first_pool,
          activity: { ...t.activity, holders: t.holders },
          deployer_record: dep.record,
          pad_record: t.launched.via ? c.venue(t.launched.via, 'pad') : null,
          same_symbol: { count: same.length, tokens: same.map((x) => ({ token: x.token, launched: x.launched })) },
          coverage: coverage(W),
        },
      })
    }
    // The rule's branches, stated plainly: sent to the pad; through the relay (only the pad's log); direct.
    const byToken = (sym: string) => launches.find((l) => l.symbol === sym)!
    expect((await get(`/arc/report/${byToken('AAA').token}`)).data.launched.via).toBe(lc(d.pads[0]))
    expect((await get(`/arc/report/${byToken('RLY').token}`)).data.launched.via).toBe(lc(d.pads[1]))
    expect((await get(`/arc/report/${byToken('aaa').token}`)).data.launched).toMatchObject({ via: null, via_kind: 'direct' })
    expect((await get(`/arc/report/${byToken('AAA').token}`)).data.same_symbol.count).toBe(1)
  })

  it('/arc/report/{token} of an unknown token is found:false at the same edge', async () => {
    const r = await get(`/arc/report/0x${'ab'.repeat(20)}`)
    expect(r.data).toMatchObject({ found: false, launched: null, activity: null })
    expect(r.measured_through_block).toBe(processor.watermark())
  })

  it('/arc/deployer/{address} equals the chain for every deployer; unknown wallets are found:false', async () => {
    for (const who of [...new Set(launches.map((l) => lc(l.deployer)))]) {
      const r = await get(`/arc/deployer/${who.toUpperCase().replace('0X', '0x')}`)
      const c = await chainAt(r.measured_through_block)
      expect(r.data).toEqual({ found: true, ...c.deployer(who)!, coverage: coverage(r.measured_through_block) })
    }
    const none = await get(`/arc/deployer/${node.accounts[20]}`)
    expect(none.data).toEqual({ found: false, record: null, pads_used: [], tokens: [], coverage: coverage(none.measured_through_block) })
  })

  it('/arc/pads equals the chain per pad, with totals', async () => {
    const r = await get('/arc/pads?limit=1')
    const c = await chainAt(r.measured_through_block)
    const pads = d.pads.map((p) => c.venue(lc(p), 'pad')).sort((a, b) => b.launches - a.launches || a.address!.localeCompare(b.address!))
    const factory = c.venue(lc(d.v2.factory), 'factory')
    const all = [...pads, factory].sort((a, b) => b.launches - a.launches || a.address!.localeCompare(b.address!))
    expect(r.data).toEqual({ pads: all.slice(0, 1), totals: { ...c.venue('*', 'all'), direct: c.venue(null, 'direct') }, coverage: coverage(r.measured_through_block) })
    expect((await get('/arc/pads')).data.pads).toEqual(all)
    expect(all[0]!.launches).toBeGreaterThan(0)
  })

  it('/arc/feed/new equals the chain, newest first, with via and min_transfers', async () => {
    for (const q of ['', `via=${d.pads[0]}`, 'min_transfers=2', `via=${d.pads[1]}&min_transfers=1`]) {
      const r = await get(`/arc/feed/new?limit=200&${q}`)
      const c = await chainAt(r.measured_through_block)
      const params = new URLSearchParams(q)
      const via = params.get('via')?.toLowerCase()
      const min = Number(params.get('min_transfers') ?? 0)
      const want = c.newestFirst.filter((x) => (!via || x.launched.via === via) && x.activity.transfers >= min)
      expect(r.data, q).toEqual({ tokens: want.map(c.view), matched: want.length, next_before_block: 0, coverage: coverage(r.measured_through_block) })
      expect(want.length, q).toBeGreaterThan(0)
    }
  })

  it('paging /arc/feed/new with next_before_block visits every matching token exactly once, also while launches arrive', async () => {
    for (const q of ['limit=2', `limit=1&via=${d.pads[0]}`, 'limit=3&min_transfers=1']) {
      const first = await get(`/arc/feed/new?${q}`)
      const c = await chainAt(first.measured_through_block)
      const params = new URLSearchParams(q)
      const via = params.get('via')?.toLowerCase()
      const min = Number(params.get('min_transfers') ?? 0)
      const want = c.newestFirst.filter((x) => (!via || x.launched.via === via) && x.activity.transfers >= min).map((x) => x.token)
      const seen: string[] = first.data.tokens.map((t: { token: string }) => t.token)
      let next = first.data.next_before_block as number
      let pages = 1
      while (next !== 0) {
        // A new launch arrives between pages: it is newer than the cursor and never shows up on the pages that follow.
        launches.push(await launch(node, d, { kind: 'pad', pad: d.pads[0], from: node.accounts[11], symbol: `N${launches.length}` }))
        await caughtUp()
        const page = await get(`/arc/feed/new?${q}&before_block=${next}`)
        expect(page.data.tokens.length).toBeLessThanOrEqual(Number(params.get('limit')) + 3)
        for (const t of page.data.tokens) expect(t.launched.block).toBeLessThan(next)
        seen.push(...page.data.tokens.map((t: { token: string }) => t.token))
        next = page.data.next_before_block
        expect(++pages).toBeLessThan(50)
      }
      expect(seen, q).toEqual(want)
      expect(new Set(seen).size).toBe(seen.length)
    }
  }, 120_000)

  it('a block with more matching launches than limit is one page, whole', async () => {
    const block = launches.find((l) => l.symbol === 'M1')!.block
    const page = await get(`/arc/feed/new?limit=1&before_block=${Number(block) + 1}`)
    expect(page.data.tokens.map((t: { token: string }) => t.token).sort()).toEqual(launches.filter((l) => l.block === block).map((l) => lc(l.token)).sort())
    expect(page.data.next_before_block).toBe(Number(block))
  })

  it('out-of-range limit, a malformed via or before_block answer 400 naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['/arc/feed/new?limit=0', 'limit'], ['/arc/feed/new?limit=201', 'limit'], ['/arc/feed/new?limit=abc', 'limit'],
      ['/arc/pads?limit=0', 'limit'], ['/arc/pads?limit=201', 'limit'],
      ['/arc/feed/new?via=0x1234', 'via'], ['/arc/feed/new?via=hello', 'via'],
      ['/arc/feed/new?before_block=abc', 'before_block'], ['/arc/feed/new?before_block=-1', 'before_block'], ['/arc/feed/new?before_block=1.5', 'before_block'],
      ['/arc/feed/new?min_transfers=x', 'min_transfers'],
    ]
    for (const [url, parameter] of cases) {
      const res = await api.app.inject({ method: 'GET', url, headers: admin })
      expect(res.statusCode, url).toBe(400)
      expect(res.json().error.details.parameter, url).toBe(parameter)
    }
    expect((await api.app.inject({ method: 'GET', url: '/arc/report/0x12', headers: admin })).statusCode).toBe(400)
  })

  it('a reorg (evm_snapshot / evm_revert, then a different chain) leaves no orphaned arc rows, and the answers equal the new chain', async () => {
    const snap = await node.snapshot()
    const before = await caughtUp()
    const kept = launches.length
    const [padA, padB] = d.pads
    const a = node.accounts
    // Blocks the service ingests, then loses: a launch, a pool, a buy, a transfer.
    const lost = await launch(node, d, { kind: 'pad', pad: padA, from: a[12], symbol: 'LOST' })
    launches.push(lost)
    await addPool(node, d, lost.token, a[12], '1')
    await buy(node, d, lost.token, a[13])
    await transfer(node, launches[2]!.token, a[2], a[14], parseEther('1'))
    const orphanHead = await caughtUp()
    expect(orphanHead).toBeGreaterThan(before)
    expect((await get(`/arc/report/${lost.token}`)).data.found).toBe(true)
    await node.revert(snap)
    launches.splice(kept)
    launches.push(await launch(node, d, { kind: 'pad', pad: padB, from: a[15], symbol: 'NEW' }))
    await buy(node, d, launches[1]!.token, a[16])
    await node.mine(6)
    const deadline = Date.now() + 30_000
    while (Number((await queryRows<{ n: string }>(rt.ch, 'SELECT count() AS n FROM chain_reorgs WHERE chain_id = 5042'))[0]!.n) === 0) {
      if (Date.now() > deadline) throw new Error('no reorg was recorded')
      await new Promise((r) => setTimeout(r, 100))
    }
    await caughtUp()
    const feed = await get('/arc/feed/new?limit=200')
    const c = await chainAt(feed.measured_through_block)
    expect(feed.data.tokens).toEqual(c.newestFirst.map(c.view))
    expect(feed.data.tokens.some((t: { symbol: string }) => t.symbol === 'LOST')).toBe(false)
    const pads = await get('/arc/pads')
    expect(pads.data.totals).toEqual({ ...c.venue('*', 'all'), direct: c.venue(null, 'direct') })
    expect((await get(`/arc/report/${lost.token}`)).data.found).toBe(false)
    const r = await get(`/arc/report/${launches[1]!.token}`)
    const t = c.tokens.get(lc(launches[1]!.token))!
    expect(r.data.activity).toEqual({ ...t.activity, holders: t.holders })
    const orphans = await queryRows<{ n: string }>(
      rt.ch,
      `SELECT ${['arc_launches', 'arc_launches_by_block', 'arc_first_pools', 'arc_token_activity', 'arc_balance_deltas', 'arc_venue_stats', 'arc_deployer_venues']
        .map((x) => `(SELECT count() FROM ${x} WHERE chain_id = 5042 AND block_number NOT IN (SELECT number FROM chain_blocks WHERE chain_id = 5042))`).join(' + ')} AS n`,
    )
    expect(Number(orphans[0]!.n)).toBe(0)
  }, 120_000)

  it('the /arc endpoints are paid (402 without a key), at their catalog prices', async () => {
    const prices: Record<string, string> = { '/arc/report/{token}': '0.03', '/arc/deployer/{address}': '0.03', '/arc/pads': '0.01', '/arc/feed/new': '0.02' }
    for (const e of api.deps.catalog.filter((x) => x.path.startsWith('/arc/'))) expect(e.access).toMatchObject({ kind: 'paid', price: prices[e.path] })
    expect((await api.app.inject({ method: 'GET', url: '/arc/pads' })).statusCode).toBe(402)
  })
})

