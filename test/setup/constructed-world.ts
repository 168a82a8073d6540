import type { Bus } from '../../core/bus/types.ts'
import { queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import type { ChainBlock, ChainLog, ContractCreation } from '../../pipelines/records/chain-block.ts'
import { encodeLog, type LogSpec } from '../../pipelines/sim/encode.ts'
import { SIM_4663_CONTRACTS, ZERO_ADDRESS } from '../../pipelines/sim/contracts.ts'
import { chainTopic } from '../../core/bus/topics.ts'

/**
 * A chain-4663 world written event by event, whose answers are known by construction: token
 * creations, supply and transfers, Uniswap v2 pairs against the simulator's WETH and factory,
 * liquidity mints and burns, buys and sells by named wallets, each block at a chosen time. The
 * blocks are ABI-encoded with the simulator's encoder and published on the chain topic, so they
 * go through the production decoders, processor, views and serving refresh.
 */
export const WETH = SIM_4663_CONTRACTS.weth
const FACTORY = SIM_4663_CONTRACTS.v2Factories[0]!
const E18 = 10n ** 18n

export const weth = (x: number) => BigInt(Math.round(x * 1e6)) * 10n ** 12n

export interface Pair {
  token: string
  pair: string
  /** WETH is token0 of the pair. */
  wethIs0: boolean
}

export class ConstructedWorld {
  readonly blocks: ChainBlock[] = []
  private seq = 0
  private published = 0
  private pairs = 0
  private cur: ChainBlock | null = null

  constructor(private number: number, private time: number, private readonly salt = 'c0') {}

  /** A fresh address of a kind (deterministic). */
  address(kind: string): string {
    this.seq++
    return `0x${kind.padEnd(8, '0').slice(0, 8)}${this.salt}${this.seq.toString(16).padStart(30, '0')}`
  }

  private hash(n: number, kind: string): string {
    return `0x${kind}${this.salt}${n.toString(16).padStart(64 - kind.length - this.salt.length, '0')}`
  }

  /** Start a block `seconds` after the previous one. */
  block(seconds = 12): this {
    this.number++
    this.time += seconds
    const parent = this.blocks.length ? this.blocks[this.blocks.length - 1]!.hash : this.hash(this.number - 1, 'b')
    this.cur = { chainId: 4663, number: this.number, hash: this.hash(this.number, 'b'), parentHash: parent, timestamp: this.time, creations: [], logs: [] }
    this.blocks.push(this.cur)
    return this
  }

  get now(): number {
    return this.time
  }

  get head(): number {
    return this.number
  }

  private log(txFrom: string, spec: LogSpec, txHash?: string): string {
    const b = this.cur ?? this.block().cur!
    const e = encodeLog(spec)
    const tx = txHash ?? this.hash(++this.seq, 'a')
    const l: ChainLog = { logIndex: b.logs.length, txHash: tx, txIndex: b.logs.length, txFrom, address: e.address, topics: e.topics, data: e.data }
    b.logs.push(l)
    return tx
  }

  /** A token created by `deployer` with `supply` whole tokens minted to it. */
  create(deployer: string, symbol: string, supply = 1_000_000n): string {
    const b = this.cur ?? this.block().cur!
    const token = this.address('70ce')
    const c: ContractCreation = { txHash: this.hash(++this.seq, 'c'), txIndex: b.creations.length, address: token, deployer, erc20: { name: `${symbol} token`, symbol, decimals: 18 } }
    b.creations.push(c)
    this.log(deployer, { type: 'erc20_transfer', address: token, from: ZERO_ADDRESS, to: deployer, value: supply * E18 })
    return token
  }

  transfer(token: string, from: string, to: string, whole: bigint): void {
    this.log(from, { type: 'erc20_transfer', address: token, from, to, value: whole * E18 })
  }

  /** The token's WETH pair (its launch) with `wethAmount` WETH and `tokens` whole tokens from `provider`. */
  launch(token: string, provider: string, wethAmount: bigint, tokens: bigint): Pair {
    const pair = this.address('9a1c')
    const wethIs0 = WETH < token
    this.log(provider, { type: 'v2_pair_created', address: FACTORY, token0: wethIs0 ? WETH : token, token1: wethIs0 ? token : WETH, pair, allPairsLength: BigInt(++this.pairs) })
    const p = { token, pair, wethIs0 }
    this.mint(p, provider, wethAmount, tokens)
    return p
  }

  mint(p: Pair, provider: string, wethAmount: bigint, tokens: bigint): void {
    const t = tokens * E18
    this.log(provider, { type: 'v2_mint', address: p.pair, sender: provider, amount0: p.wethIs0 ? wethAmount : t, amount1: p.wethIs0 ? t : wethAmount })
  }

  burn(p: Pair, provider: string, wethAmount: bigint, tokens: bigint): void {
    const t = tokens * E18
    this.log(provider, { type: 'v2_burn', address: p.pair, sender: provider, to: provider, amount0: p.wethIs0 ? wethAmount : t, amount1: p.wethIs0 ? t : wethAmount })
  }

  /** `trader` pays `wethIn` WETH for `tokensOut` whole tokens. */
  buy(p: Pair, trader: string, wethIn: bigint, tokensOut: bigint): void {
    const t = tokensOut * E18
    this.log(trader, {
      type: 'v2_swap', address: p.pair, sender: trader, to: trader,
      amount0In: p.wethIs0 ? wethIn : 0n, amount1In: p.wethIs0 ? 0n : wethIn, amount0Out: p.wethIs0 ? 0n : t, amount1Out: p.wethIs0 ? t : 0n,
    })
  }

  /** `trader` sells `tokensIn` whole tokens for `wethOut` WETH. */
  sell(p: Pair, trader: string, tokensIn: bigint, wethOut: bigint): void {
    const t = tokensIn * E18
    this.log(trader, {
      type: 'v2_swap', address: p.pair, sender: trader, to: trader,
      amount0In: p.wethIs0 ? 0n : t, amount1In: p.wethIs0 ? t : 0n, amount0Out: p.wethIs0 ? wethOut : 0n, amount1Out: p.wethIs0 ? 0n : wethOut,
    })
  }

  /** Publish the blocks not published yet; answers the last block number. */
  async publish(bus: Bus): Promise<number> {
    const fresh = this.blocks.slice(this.published)
    this.published = this.blocks.length
    this.cur = null
    if (fresh.length) await bus.publish(chainTopic(4663), fresh.map((b) => ({ key: String(b.number), value: JSON.stringify(b) })))
    return this.number
  }
}

/**
 * Publish the world's new blocks and wait until the processor has stored them: its watermark is
 * the world's head and the stored head has the world's hash (after a fork, the new chain's), and
 * `served` (when given) says the readers caught up too.
 */
export async function ingestWorld(
  w: ConstructedWorld,
  into: { bus: Bus; ch: ClickHouseClient; watermark: () => number },
  served: () => Promise<boolean> = async () => true,
): Promise<void> {
  await w.publish(into.bus)
  const storedHead = async () =>
    (await queryRows<{ hash: string }>(into.ch, 'SELECT hash FROM chain_blocks FINAL WHERE chain_id = 4663 ORDER BY number DESC LIMIT 1'))[0]?.hash ?? ''
  const deadline = Date.now() + 120_000
  while (into.watermark() !== w.head || (await storedHead()) !== w.blocks.at(-1)!.hash || !(await served())) {
    if (Date.now() > deadline) throw new Error(`ingest stuck at ${into.watermark()} (head ${w.head})`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
