import { type AbiEvent, type AbiParameter, encodeAbiParameters, encodeEventTopics, type Hex } from 'viem'
import { erc20Abi } from '../decode/erc20.ts'
import { uniswapV2FactoryAbi } from '../decode/uniswap-v2-factory.ts'
import { uniswapV2PairAbi } from '../decode/uniswap-v2-pair.ts'

/**
 * A log the world emits, before ABI encoding. The world decides what happens; this file
 * turns it into the topics and data a node would return, with viem's encoder, so the
 * production decoders are tested against an independent implementation.
 */
export type LogSpec =
  | { kind: 'transfer'; address: string; from: string; to: string; value: bigint }
  | { kind: 'pairCreated'; address: string; token0: string; token1: string; pair: string; allPairsLength: bigint }
  | { kind: 'swap'; address: string; sender: string; to: string; amount0In: bigint; amount1In: bigint; amount0Out: bigint; amount1Out: bigint }
  | { kind: 'sync'; address: string; reserve0: bigint; reserve1: bigint }
  | { kind: 'mint'; address: string; sender: string; amount0: bigint; amount1: bigint }
  | { kind: 'burn'; address: string; sender: string; to: string; amount0: bigint; amount1: bigint }

export interface EncodedLog {
  address: string
  topics: string[]
  data: string
}

const [transferEvent] = erc20Abi
const [pairCreatedEvent] = uniswapV2FactoryAbi
const [swapEvent, syncEvent, mintEvent, burnEvent] = uniswapV2PairAbi

function dataParams(event: AbiEvent): readonly AbiParameter[] {
  return event.inputs.filter((p) => !p.indexed)
}
const transferData = dataParams(transferEvent)
const pairCreatedData = dataParams(pairCreatedEvent)
const swapData = dataParams(swapEvent)
const syncData = dataParams(syncEvent)
const mintData = dataParams(mintEvent)
const burnData = dataParams(burnEvent)

// encodeEventTopics re-hashes the event signature on every call (about 40 us here), so
// topic0 is encoded once per event and each indexed argument is encoded the way
// encodeEventTopics encodes it: encodeAbiParameters of that one parameter.
const topic0 = (abi: readonly AbiEvent[], eventName: string) =>
  (encodeEventTopics({ abi, eventName } as Parameters<typeof encodeEventTopics>[0]) as Hex[])[0]
const TRANSFER = topic0(erc20Abi, 'Transfer')
const PAIR_CREATED = topic0(uniswapV2FactoryAbi, 'PairCreated')
const SWAP = topic0(uniswapV2PairAbi, 'Swap')
const SYNC = topic0(uniswapV2PairAbi, 'Sync')
const MINT = topic0(uniswapV2PairAbi, 'Mint')
const BURN = topic0(uniswapV2PairAbi, 'Burn')

const ADDRESS_PARAM = [{ type: 'address' }] as const
const addressTopic = (address: string) => encodeAbiParameters(ADDRESS_PARAM, [address as Hex])

/** ABI-encode one world log. */
export function encodeLog(spec: LogSpec): EncodedLog {
  switch (spec.kind) {
    case 'transfer':
      return {
        address: spec.address,
        topics: [TRANSFER, addressTopic(spec.from), addressTopic(spec.to)],
        data: encodeAbiParameters(transferData, [spec.value]),
      }
    case 'pairCreated':
      return {
        address: spec.address,
        topics: [PAIR_CREATED, addressTopic(spec.token0), addressTopic(spec.token1)],
        data: encodeAbiParameters(pairCreatedData, [spec.pair, spec.allPairsLength]),
      }
    case 'swap':
      return {
        address: spec.address,
        topics: [SWAP, addressTopic(spec.sender), addressTopic(spec.to)],
        data: encodeAbiParameters(swapData, [spec.amount0In, spec.amount1In, spec.amount0Out, spec.amount1Out]),
      }
    case 'sync':
      return {
        address: spec.address,
        topics: [SYNC],
        data: encodeAbiParameters(syncData, [spec.reserve0, spec.reserve1]),
      }
    case 'mint':
      return {
        address: spec.address,
        topics: [MINT, addressTopic(spec.sender)],
        data: encodeAbiParameters(mintData, [spec.amount0, spec.amount1]),
      }
    case 'burn':
      return {
        address: spec.address,
        topics: [BURN, addressTopic(spec.sender), addressTopic(spec.to)],
        data: encodeAbiParameters(burnData, [spec.amount0, spec.amount1]),
      }
  }
}
