import { createPublicClient, erc20Abi, hexToNumber, http, toHex, type Hex, type PublicClient } from 'viem'
import type { ClickHouseClient } from '../../../core/clickhouse.ts'
import { queryRows } from '../../../core/clickhouse.ts'
import type { Logger } from '../../../core/logger.ts'
import type { Bus } from '../../../core/bus/types.ts'
import { isPermanentPublishError } from '../../../core/bus/publish-errors.ts'
import { decoders } from '../../decode/index.ts'
import type { ChainBlock, ChainLog, ContractCreation } from '../../records/chain-block.ts'
import { chainTopic, namespaced } from '../../../core/bus/topics.ts'
import { AdaptiveRange } from './adaptive-range.ts'
import { isRangeError, withRetry } from './retry.ts'

interface RpcLog {
  blockNumber: Hex
  blockHash: Hex
  logIndex: Hex
  transactionHash: Hex
  transactionIndex: Hex
  address: Hex
  topics: Hex[]
  data: Hex
  removed?: boolean
}

interface RpcTx {
  hash: Hex
  from: Hex
  to: Hex | null
  transactionIndex: Hex
}

interface RpcBlock {
  number: Hex
  hash: Hex
  parentHash: Hex
  timestamp: Hex
  transactions: RpcTx[]
}

export interface RpcSourceOptions {
  bus: Bus
  logger: Logger
  chainId: number
  rpcUrl: string
  namespace?: string
  /** Blocks kept behind head: only blocks this deep are published. */
  confirmations: number
  /** Where to resume: the first block to publish and the hashes already published below it. */
  start: RpcStart
  pollMs?: number
  /** Largest getLogs range, in blocks. */
  maxRange?: number
  /** Parallel block and receipt requests. */
  concurrency?: number
  /**
   * Launch attribution (chain 5042): the configured launchpads and factories. The source then also
   * reads every log these addresses emit (any event: no ABI is assumed), states each log's
   * transaction `to`, and reads the ERC20 metadata of contracts first seen minting, which is what
   * the ABI-free launch rule needs (pipelines/process/arc-rows.ts).
   */
  attribution?: { addresses: string[] }
}

export interface RpcStart {
  fromBlock: number
  /** Recent published (ingested) blocks: number -> hash, to find a fork point. */
  hashes: Map<number, string>
}

/** Resume after the last ingested block (chain_blocks is the cursor), or at the start block. */
export async function resolveRpcStart(ch: ClickHouseClient, chainId: number, startBlock: number): Promise<RpcStart> {
  const rows = await queryRows<{ number: string; hash: string }>(
    ch,
    'SELECT number, hash FROM chain_blocks WHERE chain_id = {chain:UInt32} ORDER BY number DESC LIMIT 1024',
    { chain: chainId },
  )
  const hashes = new Map(rows.map((r) => [Number(r.number), r.hash]))
  return { fromBlock: rows[0] ? Number(rows[0].number) + 1 : startBlock, hashes }
}

/** ERC20 Transfer(address,address,uint256). */
const TRANSFER_TOPIC0 = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const ZERO_WORD = `0x${'0'.repeat(64)}`
/** Tokens whose metadata a source remembers having read (least recently seen dropped first). */
const DESCRIBED_MAX = 100_000

/** Map with at most `limit` calls in flight. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++
        out[i] = await fn(items[i]!)
      }
    }),
  )
  return out
}

export interface RpcSource {
  run(): Promise<void>
  stop(): void
  /** The next block number to publish. */
  nextBlock(): number
}

/**
 * The JSON-RPC source of a chain: follows head minus a confirmation depth, reads logs of the
 * events we decode over adaptive block ranges, reads every block with its transactions (the
 * sender of every log's transaction, and contract creations with their receipts and ERC20
 * metadata), and publishes one record per block. A fork below the published head is found by
 * parent-hash checks; the source then publishes again from the fork point, and the processor,
 * seeing a known block number with a new hash, rolls the orphaned rows back.
 */
export function createRpcSource(opts: RpcSourceOptions): RpcSource {
  const { bus, logger, chainId } = opts
  const topic = namespaced(opts.namespace ?? '', chainTopic(chainId))
  const client: PublicClient = createPublicClient({ transport: http(opts.rpcUrl, { batch: { batchSize: 100 }, retryCount: 0, timeout: 30_000 }) })
  const topic0s = decoders.map((d) => d.topic0)
  const range = new AdaptiveRange(100, opts.maxRange ?? 2000)
  const concurrency = opts.concurrency ?? 8
  const hashes = new Map(opts.start.hashes)
  const attribution = opts.attribution?.addresses.length ? opts.attribution.addresses.map((a) => a.toLowerCase()) : undefined
  /** Contracts whose metadata was already published (attribution only): a later mint is not a first one. */
  const described = new Set<string>()
  let next = opts.start.fromBlock
  let stopped = false
  let wake: (() => void) | undefined

  const rpc = <T>(method: string, params: unknown[]): Promise<T> =>
    withRetry(() => client.request({ method, params } as never) as Promise<T>, {
      fatal: isRangeError,
      onRetry: (err, attempt, delayMs) => logger.warn({ chainId, method, attempt, delayMs, err: String(err) }, 'rpc call failed; retrying'),
    })

  async function sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms)
      wake = () => {
        clearTimeout(t)
        resolve()
      }
    })
  }

  async function erc20Metadata(address: Hex, blockNumber: bigint): Promise<ContractCreation['erc20']> {
    const read = async <T>(functionName: 'name' | 'symbol' | 'decimals'): Promise<T | undefined> => {
      try {
        return (await client.readContract({ address, abi: erc20Abi, functionName, blockNumber })) as T
      } catch {
        return undefined
      }
    }
    const [name, symbol, decimals] = await Promise.all([read<string>('name'), read<string>('symbol'), read<number>('decimals')])
    if (name === undefined && symbol === undefined) return undefined
    return { name: (name ?? '').slice(0, 200), symbol: (symbol ?? '').slice(0, 100), decimals: decimals === undefined ? null : Number(decimals) }
  }

  async function fetchRange(from: number, to: number): Promise<{ blocks: ChainBlock[]; logs: number }> {
    let logs = await rpc<RpcLog[]>('eth_getLogs', [{ fromBlock: toHex(from), toBlock: toHex(to), topics: [topic0s] }])
    if (attribution) {
      // Every log of the pads and factories, whatever its event, merged with the decoded ones.
      const venueLogs = await rpc<RpcLog[]>('eth_getLogs', [{ fromBlock: toHex(from), toBlock: toHex(to), address: attribution }])
      const seen = new Set(logs.map((l) => `${l.blockHash}:${l.logIndex}`))
      logs = [...logs, ...venueLogs.filter((l) => !seen.has(`${l.blockHash}:${l.logIndex}`))]
    }
    const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i)
    const rpcBlocks = await mapLimit(numbers, concurrency, (n) => rpc<RpcBlock>('eth_getBlockByNumber', [toHex(n), true]))
    const byBlock = new Map<number, RpcLog[]>()
    for (const l of logs) {
      const n = hexToNumber(l.blockNumber)
      if (!byBlock.has(n)) byBlock.set(n, [])
      byBlock.get(n)!.push(l)
    }
    const blocks = await mapLimit(rpcBlocks, concurrency, async (b) => {
      const number = hexToNumber(b.number)
      const senders = new Map(b.transactions.map((t) => [t.hash.toLowerCase(), t.from.toLowerCase()]))
      const recipients = new Map(b.transactions.map((t) => [t.hash.toLowerCase(), t.to ? t.to.toLowerCase() : null]))
      const creations: ContractCreation[] = []
      for (const tx of b.transactions.filter((t) => t.to === null)) {
        const receipt = await rpc<{ contractAddress: Hex | null; status: Hex }>('eth_getTransactionReceipt', [tx.hash])
        if (!receipt.contractAddress || receipt.status !== '0x1') continue
        creations.push({
          txHash: tx.hash.toLowerCase(),
          txIndex: hexToNumber(tx.transactionIndex),
          address: receipt.contractAddress.toLowerCase(),
          deployer: tx.from.toLowerCase(),
          erc20: await erc20Metadata(receipt.contractAddress, BigInt(number)),
        })
      }
      const blockLogs: ChainLog[] = (byBlock.get(number) ?? [])
        .filter((l) => l.blockHash.toLowerCase() === b.hash.toLowerCase())
        .sort((x, y) => hexToNumber(x.logIndex) - hexToNumber(y.logIndex))
        .map((l) => ({
          logIndex: hexToNumber(l.logIndex),
          txHash: l.transactionHash.toLowerCase(),
          txIndex: hexToNumber(l.transactionIndex),
          txFrom: senders.get(l.transactionHash.toLowerCase()) ?? '0x0000000000000000000000000000000000000000',
          address: l.address.toLowerCase(),
          topics: l.topics.map((t) => t.toLowerCase()),
          data: l.data.toLowerCase(),
          ...(l.removed ? { removed: true } : {}),
          ...(attribution ? { txTo: recipients.get(l.transactionHash.toLowerCase()) ?? null } : {}),
        }))
      let minted: ChainBlock['minted']
      if (attribution) {
        // Contracts minting here that no top-level creation of this block made: read what they are once.
        for (const c of creations) described.add(c.address)
        const minters = [...new Set(blockLogs.filter((l) => l.topics[0] === TRANSFER_TOPIC0 && l.topics.length === 3 && l.topics[1] === ZERO_WORD).map((l) => l.address))]
        minted = []
        for (const address of minters.filter((a) => !described.has(a))) {
          minted.push({ address, erc20: await erc20Metadata(address as Hex, BigInt(number)) })
          described.add(address)
        }
        for (const a of described) {
          if (described.size <= DESCRIBED_MAX) break
          described.delete(a)
        }
      }
      const block: ChainBlock = {
        chainId,
        number,
        hash: b.hash.toLowerCase(),
        parentHash: b.parentHash.toLowerCase(),
        timestamp: hexToNumber(b.timestamp),
        creations,
        logs: blockLogs,
        ...(minted ? { minted } : {}),
      }
      return block
    })
    return { blocks, logs: logs.length }
  }

  /** Walk back from `n` to the newest block whose hash the node and we agree on. */
  async function findForkPoint(n: number): Promise<number> {
    while (n >= 0 && hashes.has(n)) {
      const b = await rpc<RpcBlock>('eth_getBlockByNumber', [toHex(n), false])
      if (b && b.hash.toLowerCase() === hashes.get(n)) return n
      n--
    }
    return n
  }

  return {
    async run() {
      await bus.ensureTopics([topic])
      logger.info({ chainId, from: next, confirmations: opts.confirmations }, 'rpc source started')
      while (!stopped) {
        try {
          const head = Number(await rpc<Hex>('eth_blockNumber', []))
          const safe = head - opts.confirmations
          if (next > safe) {
            // Idle at head: check that the last published block is still on the chain.
            const last = next - 1
            const known = hashes.get(last)
            if (known && last <= head) {
              const b = await rpc<RpcBlock | null>('eth_getBlockByNumber', [toHex(last), false])
              if (b && b.hash.toLowerCase() !== known) {
                const fork = await findForkPoint(last)
                logger.warn({ chainId, at: last, resumeFrom: fork + 1 }, 'reorg detected at head; publishing again from the fork point')
                for (const n of [...hashes.keys()]) if (n > fork) hashes.delete(n)
                next = fork + 1
                continue
              }
            }
            await sleep(opts.pollMs ?? 1000)
            continue
          }
          const to = Math.min(safe, next + range.size - 1)
          let fetched: { blocks: ChainBlock[]; logs: number }
          try {
            fetched = await fetchRange(next, to)
          } catch (err) {
            if (!isRangeError(err)) throw err
            range.shrink()
            logger.info({ chainId, size: range.size }, 'getLogs range refused; shrinking')
            continue
          }
          const { blocks } = fetched
          // The range must hang together and onto what we published; otherwise the chain moved.
          const broken = blocks.findIndex((b, i) => (i === 0 ? hashes.has(b.number - 1) && hashes.get(b.number - 1) !== b.parentHash : b.parentHash !== blocks[i - 1]!.hash))
          if (broken >= 0) {
            const fork = await findForkPoint(blocks[broken]!.number - 1)
            logger.warn({ chainId, at: blocks[broken]!.number, resumeFrom: fork + 1 }, 'reorg detected; publishing again from the fork point')
            for (const n of [...hashes.keys()]) if (n > fork) hashes.delete(n)
            next = fork + 1
            continue
          }
          await bus.publish(topic, blocks.map((b) => ({ key: String(chainId), value: JSON.stringify(b) })))
          for (const b of blocks) hashes.set(b.number, b.hash)
          for (const n of hashes.keys()) if (n < to - 2048) hashes.delete(n)
          next = to + 1
          range.fitted(fetched.logs)
        } catch (err) {
          if (isPermanentPublishError(err)) throw err
          logger.error({ chainId, err: String(err) }, 'rpc source failed; retrying in 2 s')
          await sleep(2000)
        }
      }
    },
    stop() {
      stopped = true
      wake?.()
    },
    nextBlock: () => next,
  }
}
