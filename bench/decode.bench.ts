import { type Abi, type AbiEvent, decodeEventLog, type Hex, toEventSelector } from 'viem'
import { erc20Abi } from '../pipelines/decode/erc20.ts'
import { decodeLog } from '../pipelines/decode/index.ts'
import { uniswapV2FactoryAbi } from '../pipelines/decode/uniswap-v2-factory.ts'
import { uniswapV2PairAbi } from '../pipelines/decode/uniswap-v2-pair.ts'
import { uniswapV3FactoryAbi } from '../pipelines/decode/uniswap-v3-factory.ts'
import { uniswapV3PoolAbi } from '../pipelines/decode/uniswap-v3-pool.ts'
import { uniswapV4PoolManagerAbi } from '../pipelines/decode/uniswap-v4-pool-manager.ts'
import type { ChainLog } from '../pipelines/records/chain-block.ts'
import { createChainSimulator } from '../pipelines/sim/chain-sim.ts'
import type { BenchResult } from './result.ts'

export interface DecodeBenchOptions {
  /** Logs to decode (taken from the simulator). Default 200,000 or BENCH_DECODE_LOGS. */
  logs?: number
  /** Minimum measured time per contender, ms. Default 1,500. */
  minMs?: number
}

/**
 * Decode throughput of `decodeLog` against viem's `decodeEventLog` on the same simulated
 * logs (ERC20 and Uniswap v2, v3 and v4 events, in the mix the simulator emits). The
 * baseline gets the same dispatch we do: a Map from topic0 to a one-event ABI, so viem
 * never scans events it does not need.
 */
export async function benchDecode(opts: DecodeBenchOptions = {}): Promise<BenchResult> {
  const count = opts.logs ?? Number(process.env.BENCH_DECODE_LOGS ?? 200_000)
  const minMs = opts.minMs ?? 1500

  const sim = createChainSimulator({ chainId: 4663, seed: 'bench-decode' })
  const logs: ChainLog[] = []
  while (logs.length < count) logs.push(...sim.nextBlock().logs)
  logs.length = count

  const abiByTopic0 = new Map<string, Abi>()
  const events = [...erc20Abi, ...uniswapV2FactoryAbi, ...uniswapV2PairAbi, ...uniswapV3FactoryAbi, ...uniswapV3PoolAbi, ...uniswapV4PoolManagerAbi]
  for (const event of events as AbiEvent[]) {
    abiByTopic0.set(toEventSelector(event), [event])
  }
  const viemDecode = (log: ChainLog) => {
    const abi = abiByTopic0.get(log.topics[0]!)
    if (abi === undefined) return null
    return decodeEventLog({ abi, topics: log.topics as [Hex, ...Hex[]], data: log.data as Hex }) as { eventName: string }
  }

  // Both must decode every log, or the comparison is not like for like.
  let sink = 0
  const ourPass = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const d = decodeLog(logs[i])
      if (d === null || d.type === 'malformed') throw new Error(`decodeLog failed on log ${i}`)
      sink += d.type.length
    }
  }
  const viemPass = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const d = viemDecode(logs[i])
      if (d === null) throw new Error(`viem failed on log ${i}`)
      sink += d.eventName.length
    }
  }

  ourPass(0, logs.length) // warm-up: JIT and first-touch of every string
  viemPass(0, Math.min(logs.length, 20_000))

  const ours = measure(logs.length, minMs, () => ourPass(0, logs.length))
  const base = measure(logs.length, minMs, () => viemPass(0, logs.length))
  if (sink === 0) throw new Error('unreachable')

  const mix = new Map<string, number>()
  for (const l of logs) {
    const t = decodeLog(l)!.type
    mix.set(t, (mix.get(t) ?? 0) + 1)
  }
  return {
    name: `decode: ${count.toLocaleString('en-US')} simulated chain-4663 logs`,
    baseline: 'viem 2.57.1 decodeEventLog with a per-topic0 ABI',
    ours: { value: Math.round(ours), unit: 'logs/s' },
    base: { value: Math.round(base), unit: 'logs/s' },
    ratio: ours / base,
    notes:
      `mix ${[...mix].map(([t, n]) => `${t} ${((100 * n) / count).toFixed(1)}%`).join(', ')}; ` +
      'ours slices hex and lowercases addresses; viem re-hashes the event signature on each call and checksums addresses',
  }
}

/** Logs per second: whole passes over the input until at least `minMs` has elapsed. */
function measure(perPass: number, minMs: number, pass: () => void): number {
  let passes = 0
  const start = performance.now()
  let elapsed = 0
  do {
    pass()
    passes++
    elapsed = performance.now() - start
  } while (elapsed < minMs)
  return (passes * perPass) / (elapsed / 1000)
}
