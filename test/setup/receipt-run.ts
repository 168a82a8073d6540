import { expect } from 'vitest'
import { followed4663 } from '../../bin/follow.ts'
import { createRuntime, type Runtime } from '../../bin/runtime.ts'
import { createApiServer, type ApiServer } from '../../bin/serve-api.ts'
import { loadConfig } from '../../core/config.ts'
import { createChainProcessor, type ChainProcessor } from '../../pipelines/process/chain-processor.ts'
import { createClaimsProcessor } from '../../pipelines/process/claims-processor.ts'
import { createRpcSource, resolveRpcStart, type RpcSource } from '../../pipelines/sources/rpc/rpc-source.ts'
import { startHardhatNode, type HardhatNode } from '../../infra/hardhat/node.ts'
import { expectedFromChain } from './chain-expectations.ts'
import { deployUniswapV2, runScenario, type ScenarioResult, type UniswapV2Deployment } from './chain-scenario.ts'
import { TEST_ADMIN_TOKEN } from './embedded.ts'
import { getOk, ingestedHead } from './hardhat-ingest.ts'
import { receiptsFromChain } from './receipt-expectations.ts'
import { tempDir } from './temp.ts'

/**
 * A hardhat chain whose swaps start in its first blocks, read by the service only once they are
 * mined, from `startBlock`, in batches as large as the processor takes (issue 24): the first batch
 * starts at `startBlock` and holds swaps. Then a second round of trades arrives in later batches.
 */
export interface ReceiptRun {
  node: HardhatNode
  v2: UniswapV2Deployment
  rt: Runtime
  api: ApiServer
  processor: ChainProcessor
  scenario: ScenarioResult
  /** The watermark after each served batch, in order. */
  batches: number[]
  caughtUp(): Promise<number>
  get(url: string): Promise<any>
  close(): Promise<void>
}

export const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

export async function startReceiptRun(startBlock: number): Promise<ReceiptRun> {
  const dir = tempDir()
  const node = await startHardhatNode({ chainId: 4663 })
  const v2 = await deployUniswapV2(node)
  const scenario = await runScenario(node, { v2 })
  const config = loadConfig({
    DATA_DIR: dir.path, LOG_LEVEL: 'warn', SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    CHAIN_4663_RPC_URL: node.rpcUrl, CHAIN_4663_CONFIRMATIONS: '0', CHAIN_4663_WETH: v2.weth, CHAIN_4663_V2_FACTORIES: v2.factory,
    CHAIN_POLL_MS: '100', PIPELINE_BATCH_BLOCKS: '10000',
  })
  const rt = await createRuntime(config, 'receipt-run')
  const api = await createApiServer(rt, { pollMs: 0 })
  const batches: number[] = []
  const processor = createChainProcessor({
    ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, chainId: 4663, follow: followed4663(config),
    maxBatchBlocks: config.PIPELINE_BATCH_BLOCKS,
    onAdvance: (b, seq) => {
      batches.push(b)
      api.watermarks.advance(4663, b, seq)
    },
  })
  await processor.start()
  const claims = createClaimsProcessor({ ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics })
  await claims.start()
  const source: RpcSource = createRpcSource({
    bus: rt.bus, logger: rt.logger, chainId: 4663, rpcUrl: node.rpcUrl, confirmations: 0,
    start: await resolveRpcStart(rt.ch, 4663, startBlock), pollMs: 100,
  })
  void source.run()
  const caughtUp = () => ingestedHead(node, processor)
  await caughtUp()
  // Later batches trade again (the same traders, new tokens): what folds on top of the first batch.
  await runScenario(node, { v2, seed: 1 })
  await caughtUp()
  return {
    node, v2, rt, api, processor, scenario, batches, caughtUp,
    get: (url) => getOk(api.app, url, admin),
    async close() {
      source.stop()
      await claims.stop()
      await processor.stop()
      await api.close()
      await rt.close()
      await node.stop()
      dir.cleanup()
    },
  }
}

/** Load the chain's traders as the roster (POST /admin/leaderboard-claims) and wait until it is read. */
export async function loadRoster(run: ReceiptRun, traders: string[]): Promise<void> {
  const head = await run.node.client.getBlock()
  const claimedAt = new Date(Number(head.timestamp) * 1000 + 60_000).toISOString()
  const res = await run.api.app.inject({
    method: 'POST', url: '/admin/leaderboard-claims', headers: admin,
    payload: { claims: traders.map((w, i) => ({ source: 'fifo-board', wallet: w, rank: i + 1, claimed_pnl_usd_30d: 1000, claimed_at: claimedAt })) },
  })
  expect(res.statusCode, res.body).toBe(200)
  const deadline = Date.now() + 20_000
  while (!(await run.get(`/wallet-receipt/${traders[0]!}`)).data.found) {
    if (Date.now() > deadline) throw new Error('roster never loaded')
    await new Promise((r) => setTimeout(r, 200))
  }
}

/**
 * Every trader's receipt (realized, sells, winning sells, win rate, open cost, and each token's
 * figures) against an independent FIFO over the chain's swap events from `fromBlock`, and the
 * identity realized − open cost = WETH received − WETH spent. Answers the traders compared.
 */
/**
 * A wallet's receipt measured through `head`: right after a batch that changed the wallet, the
 * receipt before it (stating its older block) is given while the new one is built.
 */
async function receiptThrough(run: ReceiptRun, wallet: string, head: number): Promise<any> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const { data } = await run.get(`/wallet-receipt/${wallet}`)
    if (data.measured_through_block >= head || Date.now() > deadline) return data
    await new Promise((r) => setTimeout(r, 50))
  }
}

export async function expectReceiptsEqualChain(run: ReceiptRun, fromBlock: number): Promise<number> {
  const head = await run.caughtUp()
  const chain = await expectedFromChain(run.node.client, { fromBlock: BigInt(fromBlock), toBlock: BigInt(head), weth: run.v2.weth, factory: run.v2.factory })
  const want = receiptsFromChain(chain)
  for (const [w, e] of want) {
    const data = await receiptThrough(run, w, head)
    expect(data.found, w).toBe(true)
    expect(data.realized_net_wei, w).toBe(e.realized.toString())
    expect(data.sells, w).toBe(e.sells)
    expect(data.winning_sells, w).toBe(e.wins)
    expect(data.win_rate, w).toBe(e.sells > 0 ? e.wins / e.sells : null)
    expect(data.open_marks.open_cost_wei, w).toBe(e.openCost.toString())
    expect(BigInt(data.realized_net_wei) - BigInt(data.open_marks.open_cost_wei), w).toBe(e.received - e.spent)
    const perToken = new Map((data.per_token as Array<{ token: string; realized_net_wei: string; sells: number; winning_sells: number; open_cost_wei: string; spent_wei: string; received_wei: string; unmatched_sell_qty: string }>).map((t) => [t.token, t]))
    expect([...perToken.keys()].sort(), w).toEqual([...e.perToken.keys()].sort())
    for (const [token, t] of e.perToken) {
      const got = perToken.get(token)!
      expect([got.realized_net_wei, got.sells, got.winning_sells, got.open_cost_wei, got.spent_wei, got.received_wei, got.unmatched_sell_qty], `${w} ${token}`).toEqual(
        [t.realized.toString(), t.sells, t.wins, t.openCost.toString(), t.spent.toString(), t.received.toString(), t.unmatchedQty.toString()],
      )
    }
  }
  return want.size
}
